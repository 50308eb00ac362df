/// `auth.*`: login by phone code, sign-up for unknown phones, logout, and the authorization transfer between data
/// centers (`exportAuthorization` on the home DC, `importAuthorization` on the other: a key on a second DC logged in
/// without a second code). A key logged in is bound to its user in storage, so the login survives a restart.
enum AuthRPC {}
