package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Contact is the argument of json_schema_2020_12_tool. Its schema uses JSON Schema 2020-12
// keywords that Go types cannot express ($defs with an $anchor, allOf, if/then/else), so it
// is declared in contact.schema.json, and UnmarshalJSON checks what the schema says.
//
//mcp:schema file=contact.schema.json
type Contact struct {
	Name          string   `json:"name,omitempty"`
	Address       *Address `json:"address,omitempty"`
	ContactMethod string   `json:"contactMethod,omitempty"`
	Phone         string   `json:"phone,omitempty"`
	Email         string   `json:"email,omitempty"`
}

// Address is a postal address.
type Address struct {
	Street string `json:"street,omitempty"`
	City   string `json:"city,omitempty"`
}

// UnmarshalJSON reads a contact and checks it against contact.schema.json.
func (c *Contact) UnmarshalJSON(data []byte) error {
	type plain Contact // without this method
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(c)); err != nil {
		return err
	}
	switch {
	case c.ContactMethod != "" && c.ContactMethod != "phone" && c.ContactMethod != "email":
		return fmt.Errorf("/contactMethod: must be one of \"phone\", \"email\"")
	case c.Phone == "" && c.Email == "":
		return errors.New("a phone or an email is required")
	case c.ContactMethod == "phone" && c.Phone == "":
		return errors.New("/phone: required when contactMethod is phone")
	case c.ContactMethod != "phone" && c.Email == "":
		return errors.New("/email: required unless contactMethod is phone")
	}
	return nil
}

// SaveContact accepts a contact described by a JSON Schema 2020-12 document.
//
//mcp:tool json_schema_2020_12_tool
func SaveContact(c Contact) string {
	return fmt.Sprintf("Saved contact %s", c.Name)
}
