// Package billing charges users.
package billing

import (
	"fmt"

	"example.com/accounts/user"
)

// Invoice is what a user owes.
type Invoice struct {
	User   *user.User
	Amount int
}

// UserInvoice bills a new user.
func UserInvoice(s *user.UserService, name string, amount int) (Invoice, error) {
	u, err := s.CreateUser(name)
	if err != nil {
		return Invoice{}, fmt.Errorf("billing %s: %w", name, err)
	}
	return Invoice{User: u, Amount: amount}, nil
}
