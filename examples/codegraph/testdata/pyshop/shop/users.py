"""Users of the shop."""


class User:
    """A person with an account."""

    def __init__(self, name):
        self.name = name


class UserService:
    """Creates users."""

    def create_user(self, name):
        """Makes a user, once its name is valid."""
        self._validate(name)
        return User(name)

    def _validate(self, name):
        if not name.strip():
            raise ValueError("no name")


class AdminService(UserService):
    def create_admin(self, name):
        return self.create_user(name)
