import MTProtoNIO
import TL

extension ConnectionManager {
    /// Logs in by phone code (`auth.sendCode`, then `auth.signIn` with `code`), following a migration to the account's
    /// home data center, and records the login. For tests and benchmarks against a server with a fixed login code.
    @discardableResult
    public func logIn(phone: String, code: String = "12345") async throws -> API.User.User {
        let sent = try await send(API.functions.auth.SendCode(phoneNumber: phone, apiId: 1, apiHash: "test",
                                                              settings: .codeSettings(.init())))
        guard case let .sentCode(codeSent) = sent else { throw TestClientError.unexpected("sendCode: \(sent.constructorName)") }
        let signedIn = try await send(API.functions.auth.SignIn(phoneNumber: phone, phoneCodeHash: codeSent.phoneCodeHash,
                                                                phoneCode: code))
        guard case let .authorization(authorization) = signedIn, case let .user(user) = authorization.user else {
            throw TestClientError.unexpected("signIn: \(signedIn.constructorName)")
        }
        try authorized(userID: user.id)
        return user
    }
}

extension DataCenterDirectory {
    /// One loopback address per data center, from a server's DC → port map (`SyncServer.ports`).
    public static func loopback(_ ports: [Int32: Int]) -> DataCenterDirectory {
        DataCenterDirectory(seed: ports.mapValues { [DataCenterAddress(host: "127.0.0.1", port: $0)] })
    }
}
