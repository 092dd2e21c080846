import { User } from "./user";

/** Creates users. */
export class UserService {
  private count = 0;

  createUser(name: string): User {
    this.validate(name);
    this.count++;
    return new User(name);
  }

  private validate(name: string): void {
    if (!name.trim()) {
      throw new Error("no name");
    }
  }
}
