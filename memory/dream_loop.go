package memory

import (
	"time"

	"github.com/agentspine/spine/contract"
)

// NotifyFinalResult tells the Dreamer that a task ended. A background pass follows after
// the settle delay; notifications that arrive meanwhile share that pass. It never blocks.
func (s *Service) NotifyFinalResult(contract.FinalResult) {
	select {
	case s.trigger <- struct{}{}:
	default:
	}
}

// dreamLoop is the background Dreamer: off the hot path, one pass at a time, after each
// FinalResult plus the settle delay and, when an interval is set, on a timer.
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
		case <-tick:
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
