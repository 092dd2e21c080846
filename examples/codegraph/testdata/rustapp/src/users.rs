/// A person with an account.
pub struct User {
    pub name: String,
}

impl User {
    /// Makes a user.
    pub fn new(name: &str) -> User {
        User { name: name.to_string() }
    }
}

/// Creates users.
pub struct UserService;

impl UserService {
    pub fn create_user(&self, name: &str) -> User {
        self.validate(name);
        User::new(name)
    }

    fn validate(&self, name: &str) {
        assert!(!name.is_empty());
    }

    /// How many users it made.
    pub fn len(&self) -> usize {
        0
    }
}
