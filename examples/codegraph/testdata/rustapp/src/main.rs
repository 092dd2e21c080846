use shop::users::UserService;

fn main() {
    let service = UserService;
    let user = service.create_user("ada");
    println!("{}", user.name);
    let names: Vec<&str> = Vec::new();
    println!("{}", names.len());
    let count = names.len();
    println!("{}", count);
}
