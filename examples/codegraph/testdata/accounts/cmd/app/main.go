// Command app bills one user.
package main

import (
	"fmt"

	"example.com/accounts/billing"
	"example.com/accounts/user"
)

func main() {
	s := user.NewUserService(&user.MemoryStore{})
	inv, err := billing.UserInvoice(s, "ada", 3)
	fmt.Println(inv, err)
}
