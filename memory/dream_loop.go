package memory

import (
	"time"

	"github.com/agentspine/spine/contract"
)

// NotifyFinalResult tells the Dreamer that a task ended. A background pass follows after
// the settle delay; notifications that arrive before that pass starts share it. It never
// blocks. Hosts that live across tasks call it after each FinalResult; a process that
// runs one task and exits runs its pass itself (Flush, then DreamOnce).
func (s *Service) NotifyFinalResult(contract.FinalResult) {
	select {
	case s.trigger <- struct{}{}:
	default:
	}
}

// dreamLoop is the background Dreamer: off the hot path, one pass at a time, after each
// FinalResult plus the settle delay and, when an interval is set, on a timer. Every wait
// also watches stopDream, so Close ends it at once, with no goroutine left behind.
func (s *Service) dreamLoop() {
	defer s.dreamWG.Done()
	for {
		var tick <-chan time.Time
		if s.dream.Interval > 0 {
			tick = s.timer.After(s.dream.Interval)
		}
		select {
		case <-s.stopDream:
			return
		case <-s.trigger:
			if s.dream.SettleDelay > 0 {
				select {
				case <-s.stopDream:
					return
				case <-s.timer.After(s.dream.SettleDelay):
				}
			}
			// Notifications during the settle delay are covered by this pass.
			select {
			case <-s.trigger:
			default:
			}
		case <-tick:
		}
		// The pass must see every write accepted before it: GGS's last Megrams of the
		// task may still be queued.
		if err := s.q.wait(s.base); err != nil {
			return // closing
		}
		rep, err := s.DreamOnce(s.base)
		if s.base.Err() != nil {
			return // closing: the aborted pass is not an error
		}
		if err != nil {
			s.report(errorf("background dream pass: %v", err))
		}
		if s.onDreamPass != nil {
			s.onDreamPass(rep, err)
		}
	}
}
