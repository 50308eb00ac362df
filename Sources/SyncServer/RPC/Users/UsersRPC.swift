/// `users.getUsers` and `users.getFullUser`.
enum UsersRPC {}
