import { UserService } from "./users";

export function signUp(name) {
  const service = new UserService();
  return service.createUser(name);
}
