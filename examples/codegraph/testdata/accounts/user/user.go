// Package user keeps the users of the accounts module.
package user

import (
	"errors"
	"strings"
)

// User is a person with an account.
type User struct {
	Name string
}

// Store keeps users.
type Store interface {
	Save(u *User) error
}

// UserService creates users and saves them.
type UserService struct {
	store Store
}

// NewUserService is a service that saves to s.
func NewUserService(s Store) *UserService { return &UserService{store: s} }

// CreateUser makes a user and saves it.
func (s *UserService) CreateUser(name string) (*User, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("no name")
	}
	u := &User{Name: name}
	return u, s.store.Save(u)
}

// MemoryStore is a Store in memory.
type MemoryStore struct {
	Users []*User
}

// Save keeps u.
func (m *MemoryStore) Save(u *User) error {
	m.Users = append(m.Users, u)
	return nil
}
