"""Invoices."""

from shop import users
from shop.users import UserService as Service


def invoice(name, amount):
    s = Service()
    user = s.create_user(name)
    return {"user": user, "amount": amount}


def invoice_admin(name):
    admin = users.AdminService().create_admin(name)
    return invoice(admin.name, 0)
