// Package tool holds what both agents share: tools as typed parameter
// structs with generated JSON schemas, a registry that decodes and checks a
// model's arguments, and the loop that drives a model through tool calls.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sashabaranov/go-openai/jsonschema"

	"github.com/swe-adept/swe-adept/agent/llm"
)

// Output is what a tool returns. Text is the observation the model reads.
type Output struct {
	Text    string
	Summary string // one line for the activity pane; Text's first line if empty
	// Stop ends the loop after this call (finish_search, submit).
	Stop bool
	// Failed marks an observation that reports a mistake the model can fix.
	Failed bool
	// Data is structured output for the caller (search results, a ranking).
	Data any
}

// Tool is one function the model may call.
type Tool struct {
	Name        string
	Description string
	schema      *jsonschema.Definition
	required    []string
	call        func(ctx context.Context, raw json.RawMessage) (Output, error)
}

// New makes a tool whose arguments decode into P. The JSON schema comes from
// P's json and description tags; fields without omitempty are required.
// A handler error is shown to the model as an observation, so handlers
// return errors only for failures the model should read; mistakes it can fix
// are better as Output{Text: advice, Failed: true}.
func New[P any](name, description string, fn func(ctx context.Context, p P) (Output, error)) Tool {
	var zero P
	def, err := jsonschema.GenerateSchemaForType(zero)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema of %T: %v", name, zero, err))
	}
	return Tool{
		Name:        name,
		Description: description,
		schema:      def,
		required:    def.Required,
		call: func(ctx context.Context, raw json.RawMessage) (Output, error) {
			var p P
			if err := json.Unmarshal(raw, &p); err != nil {
				return Output{}, argError{fmt.Sprintf("arguments do not fit %s's parameters: %v", name, err)}
			}
			return fn(ctx, p)
		},
	}
}

// Schema is the tool as the model sees it.
func (t Tool) Schema() llm.Tool {
	return llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.schema}
}

// argError is a malformed call: the loop asks the model to repair it.
type argError struct{ msg string }

func (e argError) Error() string { return e.msg }

// Registry is the set of tools one agent may call.
type Registry struct {
	tools map[string]Tool
	order []string
}

// NewRegistry holds the given tools in the given order.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range tools {
		r.Add(t)
	}
	return r
}

// Add adds or replaces a tool.
func (r *Registry) Add(t Tool) {
	if _, ok := r.tools[t.Name]; !ok {
		r.order = append(r.order, t.Name)
	}
	r.tools[t.Name] = t
}

// Schemas lists the tools for a model request.
func (r *Registry) Schemas() []llm.Tool {
	out := make([]llm.Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n].Schema())
	}
	return out
}

// Names lists the tool names in order.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }

// Call runs one tool call. A malformed call (unknown tool, invalid JSON,
// missing argument) returns a *MalformedError whose text tells the model how
// to repair it; any other error is the tool's own failure.
func (r *Registry) Call(ctx context.Context, c llm.ToolCall) (Output, error) {
	t, ok := r.tools[c.Name]
	if !ok {
		return Output{}, &MalformedError{Msg: fmt.Sprintf("there is no tool %q; the tools are: %s", c.Name, strings.Join(r.order, ", "))}
	}
	raw, err := normalizeArgs(c.Arguments)
	if err != nil {
		return Output{}, &MalformedError{Msg: fmt.Sprintf("the arguments of %s are not valid JSON (%v); send one JSON object, e.g. %s", c.Name, err, example(t))}
	}
	if missing := missingRequired(raw, t.required); len(missing) > 0 {
		return Output{}, &MalformedError{Msg: fmt.Sprintf("%s needs %s; send e.g. %s", c.Name, strings.Join(missing, " and "), example(t))}
	}
	out, err := t.call(ctx, raw)
	if ae, ok := err.(argError); ok {
		return Output{}, &MalformedError{Msg: ae.msg + "; send e.g. " + example(t)}
	}
	return out, err
}

// MalformedError is a tool call the model must repair.
type MalformedError struct{ Msg string }

func (e *MalformedError) Error() string { return e.Msg }

// normalizeArgs accepts an empty argument string as {} (models send "" for
// tools without parameters) and rejects anything but a JSON object.
func normalizeArgs(s string) (json.RawMessage, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "null" {
		return json.RawMessage("{}"), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return json.RawMessage(s), nil
}

func missingRequired(raw json.RawMessage, required []string) []string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	var missing []string
	for _, k := range required {
		v, ok := m[k]
		if !ok || string(v) == "null" || string(v) == `""` {
			missing = append(missing, k)
		}
	}
	return missing
}

// example renders a call with placeholder values, for repair hints.
func example(t Tool) string {
	keys := make([]string, 0, len(t.schema.Properties))
	for k := range t.schema.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		switch t.schema.Properties[k].Type {
		case jsonschema.Integer, jsonschema.Number:
			parts = append(parts, fmt.Sprintf("%q: 1", k))
		case jsonschema.Boolean:
			parts = append(parts, fmt.Sprintf("%q: true", k))
		case jsonschema.Array:
			parts = append(parts, fmt.Sprintf("%q: [\"...\"]", k))
		default:
			parts = append(parts, fmt.Sprintf("%q: \"...\"", k))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
