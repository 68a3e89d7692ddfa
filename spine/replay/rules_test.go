package replay

// finishRules is the engine's finish test rule set: a run that ends with a Finisher's
// call.
const finishRules = `
name: finish
facts: {score: {fields: {value: float}}}
objectives: [{name: work}, {name: done, terminal: success}]
rules:
  - {name: start, salience: 1, when: 'score == nil', then: {objective: work}}
  - {name: enough, salience: 9, when: 'score != nil && score.value >= 1', then: {objective: done}}
`
