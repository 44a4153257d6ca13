package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is a server asking the person for input during one of its
// tool calls: a form of flat fields, or a URL to visit (URL set).
type Elicitation struct {
	Server, Message string
	URL             string
	Fields          []Field
}

// Field is one field of a form.
type Field struct {
	Name, Title, Description string
	// Type is string, number, integer, boolean, or choice (one of
	// Choices; Multi: several).
	Type     string
	Format   string // email, uri, date, date-time for a string
	Required bool
	Default  string // as it would be typed; "" none
	Choices  []Choice
	Multi    bool
	Min, Max *float64
}

// Choice is one value a choice field may take.
type Choice struct{ Value, Title string }

// Label is the field's title, else its name.
func (f Field) Label() string { return cmp.Or(f.Title, f.Name) }

// Answer is the person's answer: accept (with the fields as typed),
// decline, or cancel.
type Answer struct {
	Action string
	Values map[string]string
}

// Elicitor shows an elicitation to the person and waits for the answer;
// ctx ends when the call that asked ends.
type Elicitor func(ctx context.Context, e Elicitation) (Answer, error)

// Parse reads what a person typed for the field; "" is no value.
func (f Field) Parse(s string) (any, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		if f.Required {
			return nil, fmt.Errorf("%s is required", f.Label())
		}
		return nil, nil
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true", "1", "on":
			return true, nil
		case "n", "no", "false", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%s is yes or no", f.Label())
	case "integer", "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || f.Type == "integer" && n != float64(int64(n)) {
			return nil, fmt.Errorf("%s is a%s", f.Label(), map[bool]string{true: "n integer", false: " number"}[f.Type == "integer"])
		}
		if f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max {
			return nil, fmt.Errorf("%s is between %s and %s", f.Label(), bound(f.Min, "…"), bound(f.Max, "…"))
		}
		if f.Type == "integer" {
			return int64(n), nil
		}
		return n, nil
	case "choice":
		var picked []string
		for _, part := range strings.Split(s, ",") {
			v, ok := f.pick(strings.TrimSpace(part))
			if !ok {
				return nil, fmt.Errorf("%s is one of: %s", f.Label(), f.choiceList())
			}
			picked = append(picked, v)
		}
		if !f.Multi {
			if len(picked) > 1 {
				return nil, fmt.Errorf("%s takes one choice", f.Label())
			}
			return picked[0], nil
		}
		if f.Min != nil && float64(len(picked)) < *f.Min || f.Max != nil && float64(len(picked)) > *f.Max {
			return nil, fmt.Errorf("%s takes %s to %s choices", f.Label(), bound(f.Min, "0"), bound(f.Max, "any"))
		}
		return picked, nil
	}
	if err := checkFormat(f.Format, s); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Label(), err)
	}
	if f.Min != nil && float64(len([]rune(s))) < *f.Min || f.Max != nil && float64(len([]rune(s))) > *f.Max {
		return nil, fmt.Errorf("%s is %s to %s characters", f.Label(), bound(f.Min, "0"), bound(f.Max, "any"))
	}
	return s, nil
}

func bound(v *float64, none string) string {
	if v == nil {
		return none
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// pick finds a choice by value, title or number (1-based).
func (f Field) pick(s string) (string, bool) {
	for i, c := range f.Choices {
		if s == c.Value || strings.EqualFold(s, c.Title) || s == strconv.Itoa(i+1) {
			return c.Value, true
		}
	}
	return "", false
}

func (f Field) choiceList() string {
	var out []string
	for i, c := range f.Choices {
		s := fmt.Sprintf("%d %s", i+1, c.Value)
		if c.Title != "" && c.Title != c.Value {
			s += " (" + c.Title + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func checkFormat(format, s string) error {
	var err error
	switch format {
	case "email":
		_, err = mail.ParseAddress(s)
	case "uri":
		var u *url.URL
		if u, err = url.Parse(s); err == nil && u.Scheme == "" {
			err = errors.New("no scheme")
		}
	case "date":
		_, err = time.Parse(time.DateOnly, s)
	case "date-time":
		_, err = time.Parse(time.RFC3339, s)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("not a valid %s", format)
	}
	return nil
}

// Content is the answer's values in the types the schema asks for.
func (e Elicitation) Content(values map[string]string) (map[string]any, error) {
	out := map[string]any{}
	var errs []error
	for _, f := range e.Fields {
		v, err := f.Parse(values[f.Name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if v != nil {
			out[f.Name] = v
		}
	}
	return out, errors.Join(errs...)
}

// schemaProperty is the part of a property's JSON schema a form uses.
type schemaProperty struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	Default     json.RawMessage `json:"default"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []struct {
		Const string `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	Items *schemaProperty `json:"items"`
	AnyOf []struct {
		Const string `json:"const"`
		Title string `json:"title"`
	} `json:"anyOf"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
	MinLength *float64 `json:"minLength"`
	MaxLength *float64 `json:"maxLength"`
	MinItems  *float64 `json:"minItems"`
	MaxItems  *float64 `json:"maxItems"`
}

// toElicitation reads a request the SDK has checked (a flat form, or a
// URL) into what a front end shows.
func toElicitation(server string, p *mcp.ElicitParams) (Elicitation, error) {
	e := Elicitation{Server: server, Message: p.Message}
	if p.Mode == "url" || p.URL != "" {
		u, err := url.Parse(p.URL)
		if err != nil || u.Scheme != "https" && u.Scheme != "http" {
			return e, fmt.Errorf("the MCP server %s asked to visit %q, which is not a web address", server, p.URL)
		}
		e.URL = p.URL
		return e, nil
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return e, err
	}
	var schema struct {
		Properties map[string]schemaProperty `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return e, fmt.Errorf("the form of the MCP server %s: %w", server, err)
	}
	for _, name := range fieldOrder(schema.Properties, schema.Required) {
		prop := schema.Properties[name]
		f := Field{Name: name, Title: prop.Title, Description: prop.Description, Type: prop.Type, Format: prop.Format,
			Required: slices.Contains(schema.Required, name)}
		switch {
		case len(prop.Enum) > 0:
			f.Type = "choice"
			for i, v := range prop.Enum {
				c := Choice{Value: v}
				if i < len(prop.EnumNames) {
					c.Title = prop.EnumNames[i]
				}
				f.Choices = append(f.Choices, c)
			}
		case len(prop.OneOf) > 0:
			f.Type = "choice"
			for _, o := range prop.OneOf {
				f.Choices = append(f.Choices, Choice{Value: o.Const, Title: o.Title})
			}
		case prop.Type == "array" && prop.Items != nil:
			f.Type, f.Multi = "choice", true
			for _, v := range prop.Items.Enum {
				f.Choices = append(f.Choices, Choice{Value: v})
			}
			for _, o := range prop.Items.AnyOf {
				f.Choices = append(f.Choices, Choice{Value: o.Const, Title: o.Title})
			}
			f.Min, f.Max = prop.MinItems, prop.MaxItems
		case prop.Type == "string":
			f.Min, f.Max = prop.MinLength, prop.MaxLength
		default:
			f.Min, f.Max = prop.Minimum, prop.Maximum
		}
		if f.Type == "choice" && len(f.Choices) == 0 || f.Type == "array" {
			return e, fmt.Errorf("the form of the MCP server %s has a field (%s) chat cannot show", server, name)
		}
		f.Default = defaultText(prop.Default)
		e.Fields = append(e.Fields, f)
	}
	return e, nil
}

// defaultText is a default value as a person would type it.
func defaultText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, ", ")
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return map[bool]string{true: "yes", false: "no"}[b]
	}
	return string(raw)
}

// fieldOrder puts the required fields first, each part by name (the SDK
// hands the schema over as a map: the server's order is gone).
func fieldOrder(props map[string]schemaProperty, required []string) []string {
	names := slices.Sorted(maps.Keys(props))
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(required, a), slices.Contains(required, b)
		switch {
		case ra == rb:
			return 0
		case ra:
			return -1
		}
		return 1
	})
	return names
}
