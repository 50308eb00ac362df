/// `contacts.resolveUsername` (users and public channels).
enum ContactsRPC {}
