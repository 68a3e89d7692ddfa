package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/spine/trace"
)

// BenchmarkFleetMessage is the cost of one bus message: on the in-process bus (what
// every run pays), and what the fleet adds by publishing it to JetStream as well (an
// asynchronous publish, the server's acknowledgement awaited in batches as a run's end
// awaits them).
func BenchmarkFleetMessage(b *testing.B) {
	payload := map[string]any{"subtask_id": "fd2bbe76ef255e067edebebb44f0fdd1", "status": "completed", "output": "3 lines under src/ contain TODO"}
	raw, err := json.Marshal(payload) // a message event's payload is its JSON
	if err != nil {
		b.Fatal(err)
	}
	b.Run("in-process", func(b *testing.B) {
		bs := bus.New()
		if err := bs.Subscribe("R6", func(trace.Message) {}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			m, err := bus.NewMessage("R3", "R4a", "ExecutionResult", "run-1", payload)
			if err == nil {
				_, err = bs.PublishAt(int64(i+1), m)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		_ = bs.Close()
	})
	b.Run("nats", func(b *testing.B) {
		srv := testServer(b, b.TempDir())
		defer srv.Shutdown()
		c := testClient(b, srv.URL())
		defer c.Close()
		tap := newBusTap(c, "run-bench")
		ctx := context.Background()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			tap.publish(&trace.Event{Seq: int64(i + 1), Kind: trace.KindMessage,
				Body: trace.Message{From: "R3", To: "R4a", Type: "ExecutionResult", TaskID: "run-1", Payload: raw}})
			if i%256 == 255 {
				if err := tap.close(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := tap.close(ctx); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkFleetTasks runs the demo's task (R1–R4b, two rounds, the real tools) on 1, 2
// and 4 workers as goroutines of one process; tasks/s is the throughput.
func BenchmarkFleetTasks(b *testing.B) {
	rs := testRules(b)
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			srv := testServer(b, b.TempDir())
			defer srv.Shutdown()
			c := testClient(b, srv.URL())
			defer c.Close()
			ctx := context.Background()
			var ids []string
			for i := 0; i < b.N; i++ {
				st, err := c.Submit(ctx, fmt.Sprintf("%s (#%d)", demoTask, i+1), RunOptions{})
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, st.ID)
			}
			b.ResetTimer()
			start := time.Now()
			stop := workers(b, c, n, WorkerConfig{WorkdirRoot: b.TempDir(), Prepare: testPrepare(rs, noSandbox())})
			waitFinished(b, c, ids, 10*time.Minute)
			b.StopTimer()
			stop()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tasks/s")
		})
	}
}
