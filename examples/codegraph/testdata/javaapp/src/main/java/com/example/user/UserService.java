package com.example.user;

/** Keeps the users. */
public class UserService {
  /**
   * Creates a new user
   */
  public User createUser(String name) {
    validate(name);
    return new User(name);
  }

  private void validate(String name) {
    if (name.isBlank()) {
      throw new IllegalArgumentException("no name");
    }
  }
}
