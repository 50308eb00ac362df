/// `account.updateProfile`, `account.checkUsername` and `account.updateUsername`.
enum AccountRPC {}
