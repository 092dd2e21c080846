package com.example.user;

/** Answers requests about users. */
public class UserController {
  private final UserService service = new UserService();

  public String signUp(String name) {
    User user = service.createUser(name);
    return user.getName();
  }
}
