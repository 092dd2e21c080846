export { UserService } from "./service";
export { User } from "./user";
