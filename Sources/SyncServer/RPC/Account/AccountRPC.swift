/// `account.updateProfile`, `account.checkUsername`, `account.updateUsername` and `account.updateStatus`.
enum AccountRPC {}
