use shop::users::UserService;

fn main() {
    let service = UserService;
    let user = service.create_user("ada");
    println!("{}", user.name);
}
