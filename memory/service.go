package memory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
)

// Reader is what the roles get: the two queries of the planner's calibration.
type Reader interface {
	// QueryC returns the live C-level SOPs of a tag pair and refreshes their
	// last_recalled_at.
	QueryC(ctx context.Context, space, entity string) ([]contract.SOPRecord, error)
	// QueryMK returns the live potentials of the pair's M and K entries.
	QueryMK(ctx context.Context, space, entity string) (contract.Potentials, error)
}

// Writer is what GGS gets. Both calls return at once; the work happens on the write
// queue and its outcome is reported through Options.OnDurable and Options.OnError.
type Writer interface {
	Write(m contract.Megram)
	RecordNegativeFeedback(ctx context.Context, ruleID, content string)
}

// MemoryService is R5's whole interface as the role definitions give it. The host that
// opens the store holds it; roles get Reader (Service.Reader) and GGS gets a Writer
// (Service.WriterFor).
type MemoryService interface {
	Reader
	Writer
	Close()
}

// FeedbackQuantum is the (f, σ, k) of the Megram RecordNegativeFeedback appends.
type FeedbackQuantum struct {
	F, Sigma, K float64
}

// DefaultFeedback weighs a negative feedback like an anti-pattern: strong, negative,
// with the two-week half-life.
var DefaultFeedback = FeedbackQuantum{F: 0.9, Sigma: -1, K: 0.05}

// StateNegativeFeedback is the state of the Megram RecordNegativeFeedback appends.
const StateNegativeFeedback = "negative_feedback"

// Options configure a Service. Clock is required; everything else has a default.
type Options struct {
	Clock clock.Clock
	// IDs names new Megrams; default RandomIDs over Clock and crypto/rand.
	IDs IDSource
	// Timer drives the Dreamer's settle delay and interval; default SystemTimer.
	Timer Timer
	// Distiller words consolidated entries. Without one, consolidations are reported as
	// deferred and nothing is promoted.
	Distiller Distiller
	// Dream holds the Dreamer's thresholds; the zero value means DefaultDreamConfig.
	Dream DreamConfig
	// Actions are the potentials → action thresholds; zero means DefaultActionThresholds.
	Actions ActionThresholds
	// Feedback is the quantum of negative feedback; zero means DefaultFeedback.
	Feedback FeedbackQuantum
	// MaxBatch bounds how many queued operations one storage batch commits; default 4096.
	MaxBatch int
	// Storage tunes the LevelDB backend (ignored in memory).
	Storage StorageOptions

	// The callbacks below run on the store's goroutines, some while it holds locks: keep
	// them short and do not call the Service from them.

	// OnDurable receives the IDs of each committed batch of Megrams, in write order.
	// An ID passed here is durable: see Service.Write.
	OnDurable func(ids []string)
	// OnError receives every write that was rejected or failed, and background errors.
	OnError func(error)
	// OnRefusal receives every refused WriterFor request.
	OnRefusal func(Refusal)
	// OnDreamEvent receives every Dreamer decision, applied or not.
	OnDreamEvent func(DreamEvent)
	// OnDreamPass receives the report of every background Dreamer pass.
	OnDreamPass func(DreamReport, error)
}

// Stats counts what the store did since it was opened.
type Stats struct {
	Enqueued int64 `json:"enqueued"` // operations accepted by Write, feedback and recall
	Written  int64 `json:"written"`  // Megrams committed (acknowledged as durable)
	Rejected int64 `json:"rejected"` // invalid, duplicate or after-Close writes
	Failed   int64 `json:"failed"`   // operations lost to a storage error
	Refused  int64 `json:"refused"`  // WriterFor requests from roles other than GGS
}

// Service is the MKCT store: a write queue, the queries, the role gate and the Dreamer
// over one backend.
type Service struct {
	be       backend
	clock    clock.Clock
	ids      IDSource
	timer    Timer
	distil   Distiller
	dream    DreamConfig
	actions  ActionThresholds
	feedback FeedbackQuantum
	maxBatch int

	onDurable   func([]string)
	onError     func(error)
	onRefusal   func(Refusal)
	onDreamEvt  func(DreamEvent)
	onDreamPass func(DreamReport, error)

	q        *queue
	writerWG sync.WaitGroup

	// applyMu makes each storage batch's existence checks and commit one step against
	// the Dreamer's deletions.
	applyMu sync.Mutex
	// passMu runs one Dreamer pass at a time.
	passMu sync.Mutex

	// lifeMu guards closed: readers hold it shared while they use the backend.
	lifeMu sync.RWMutex
	closed bool

	base      context.Context
	cancel    context.CancelFunc
	trigger   chan struct{}
	stopDream chan struct{}
	dreamWG   sync.WaitGroup
	closeOnce sync.Once

	enqueued, written, rejected, failed, refused atomic.Int64

	errMu    sync.Mutex
	firstErr error
	// lost counts Megrams that did not reach the store; lostFlushed is lost as the last
	// Flush saw it, lostErr the first error since.
	lost, lostFlushed int64
	lostErr           error

	tallyMu sync.Mutex
	tallies map[*WriteTally]struct{}
	tallyN  atomic.Int32

	refusalMu sync.Mutex
	refusals  []Refusal
}

var (
	_ MemoryService = (*Service)(nil)
	_ Reader        = readOnly{}
	_ Writer        = ggsWriter{}
)

// OpenLevelDB opens (or creates) the store in dir.
func OpenLevelDB(dir string, opts Options) (*Service, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	be, err := openLevelBackend(dir, opts.Storage)
	if err != nil {
		return nil, err
	}
	return newService(be, opts), nil
}

// NewInMemory returns a store that lives in memory only, with the same behaviour as the
// LevelDB one.
func NewInMemory(opts Options) (*Service, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	return newService(newMemBackend(), opts), nil
}

func (o Options) check() error {
	if o.Clock == nil {
		return errors.New("memory: Options.Clock is required")
	}
	if o.Dream != (DreamConfig{}) {
		if err := o.Dream.Validate(); err != nil {
			return err
		}
	}
	if o.Actions != (ActionThresholds{}) && (o.Actions.Attention < 0 || o.Actions.Decision < 0) {
		return fmt.Errorf("memory: action thresholds %+v must not be negative", o.Actions)
	}
	if o.Feedback != (FeedbackQuantum{}) {
		if err := validNumber("feedback f", o.Feedback.F, 0, 1); err != nil {
			return err
		}
		if err := validNumber("feedback sigma", o.Feedback.Sigma, -1, 0); err != nil {
			return err
		}
		if err := validNumber("feedback k", o.Feedback.K, 0, 100); err != nil {
			return err
		}
	}
	return nil
}

func newService(be backend, o Options) *Service {
	s := &Service{
		be:          be,
		clock:       o.Clock,
		ids:         o.IDs,
		timer:       o.Timer,
		distil:      o.Distiller,
		dream:       o.Dream,
		actions:     o.Actions,
		feedback:    o.Feedback,
		maxBatch:    o.MaxBatch,
		onDurable:   o.OnDurable,
		onError:     o.OnError,
		onRefusal:   o.OnRefusal,
		onDreamEvt:  o.OnDreamEvent,
		onDreamPass: o.OnDreamPass,
		q:           newQueue(),
		trigger:     make(chan struct{}, 1),
		stopDream:   make(chan struct{}),
	}
	if s.ids == nil {
		s.ids = &RandomIDs{Clock: o.Clock}
	}
	if s.timer == nil {
		s.timer = SystemTimer{}
	}
	if s.dream == (DreamConfig{}) {
		s.dream = DefaultDreamConfig()
	}
	if s.actions == (ActionThresholds{}) {
		s.actions = DefaultActionThresholds
	}
	if s.feedback == (FeedbackQuantum{}) {
		s.feedback = DefaultFeedback
	}
	if s.maxBatch <= 0 {
		s.maxBatch = 4096
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.writerWG.Add(1)
	go s.writeLoop()
	s.dreamWG.Add(1)
	go s.dreamLoop()
	return s
}

// Close stops the Dreamer (aborting a pass in progress), commits every queued write,
// and closes the storage. Writes after Close are rejected. It is safe to call twice.
func (s *Service) Close() {
	s.closeOnce.Do(func() {
		s.cancel()
		close(s.stopDream)
		s.dreamWG.Wait()
		s.q.close()
		s.writerWG.Wait()
		s.lifeMu.Lock()
		s.closed = true
		err := s.be.close()
		s.lifeMu.Unlock()
		if err != nil {
			s.report(fmt.Errorf("memory: close: %w", err))
		}
	})
}

// Err returns the first error the store reported (rejected or failed write, background
// failure), or nil.
func (s *Service) Err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.firstErr
}

// Stats returns the store's counters.
func (s *Service) Stats() Stats {
	return Stats{
		Enqueued: s.enqueued.Load(),
		Written:  s.written.Load(),
		Rejected: s.rejected.Load(),
		Failed:   s.failed.Load(),
		Refused:  s.refused.Load(),
	}
}

func (s *Service) report(err error) {
	s.errMu.Lock()
	if s.firstErr == nil {
		s.firstErr = err
	}
	s.errMu.Unlock()
	if s.onError != nil {
		s.onError(err)
	}
}

func (s *Service) reject(err error) {
	s.rejected.Add(1)
	s.report(err)
}

// rejectMegram rejects the write of Megram id (id may be ""): it is lost to the writer.
func (s *Service) rejectMegram(id string, err error) {
	s.reject(err)
	var ids []string
	if id != "" {
		ids = []string{id}
	}
	s.lose(ids, 1, err)
}

// use runs fn while the backend is open.
func (s *Service) use(fn func() error) error {
	s.lifeMu.RLock()
	defer s.lifeMu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	return fn()
}

// Reader returns a read-only view of the store for the roles. It has no write method
// to reach by a type assertion.
func (s *Service) Reader() Reader { return readOnly{s} }

type readOnly struct{ s *Service }

func (r readOnly) QueryC(ctx context.Context, space, entity string) ([]contract.SOPRecord, error) {
	return r.s.QueryC(ctx, space, entity)
}

func (r readOnly) QueryMK(ctx context.Context, space, entity string) (contract.Potentials, error) {
	return r.s.QueryMK(ctx, space, entity)
}

// now is the clock's time in UTC.
func (s *Service) now() time.Time { return s.clock.Now().UTC() }
