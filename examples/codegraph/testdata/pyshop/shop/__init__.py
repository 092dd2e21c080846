"""A small shop: users and their invoices."""

from .users import UserService
