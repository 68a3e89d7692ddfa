// Package distill is the Dreamer's effector: it words, with a model, the SOP or
// constraint that the Dreamer's rules already decided to consolidate, and journals every
// such exchange so that a consolidation pass can be replayed without the model.
//
// It owns the prompt, the answer's contract ({"content": "..."}) and the journal format
// (one JSON object per line). It must not decide anything about memory: whether a tag pair
// is consolidated, demoted or forgotten is the memory package's rules, never the model's.
package distill
