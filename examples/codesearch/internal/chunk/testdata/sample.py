import os


def top(a, b):
    """Adds."""
    return a + b


# A shape.
@dataclass
class Shape:
    name: str

    def area(self):
        return 0

    @property
    def label(self):
        return self.name


async def fetch(url):
    return url
