use std::fmt;

/// A point.
pub struct Point {
    x: i32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({})", self.x)
    }
}

pub fn origin() -> Point {
    Point { x: 0 }
}
