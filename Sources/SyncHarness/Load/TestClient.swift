import Foundation
import MTProto
import MTProtoNIO
import NIOPosix
import TL

/// A small Telegram-protocol client for tests: one real TCP connection to a server, typed calls, typed pushes,
/// and the login sequence real clients use (sendCode → signIn).
public final class TestClient: Sendable {
    /// Looks at every answer (named by its function) and every push (named `push`) the client decodes: the server
    /// test suites check invariants that must hold for every method there, so a method added later cannot forget them.
    public typealias Inspector = @Sendable (_ source: String, _ value: any TLValue) -> Void

    public let connection: MTProtoClient
    private let pushes: AsyncStream<[UInt8]>
    private let inspector: Inspector?

    public init(port: Int, publicKey: RSAPublicKey, framing: TransportFraming = .intermediate,
                existingKey: AuthKeyExchangeResult? = nil, inspector: Inspector? = nil) async throws {
        connection = try await MTProtoClient.connect(host: "127.0.0.1", port: port, framing: framing, publicKeys: [publicKey],
                                                     existingKey: existingKey, group: MultiThreadedEventLoopGroup.singleton)
        pushes = connection.updates
        self.inspector = inspector
    }

    /// Calls `function` wrapped as clients do on a fresh connection (invokeWithLayer(229, initConnection(…))).
    public func call<Function: TLFunction>(_ function: Function) async throws -> Function.Result {
        let wrapped = API.functions.InvokeWithLayer(layer: 229, query: API.functions.InitConnection(
            apiId: 1, deviceModel: "test", systemVersion: "1", appVersion: "1", systemLangCode: "en", langPack: "",
            langCode: "en", query: function))
        let bytes = try await connection.callRaw(wrapped.serialized())
        let result = try Function.Result.deserialize(bytes)
        inspector?(function.constructorName, result)
        return result
    }

    /// Logs in with `phone` and `code`; returns the user.
    @discardableResult
    public func login(phone: String, code: String = "12345") async throws -> API.User {
        guard case let .sentCode(sent) = try await call(API.functions.auth.SendCode(
            phoneNumber: phone, apiId: 1, apiHash: "test", settings: .codeSettings(.init())))
        else { throw TestClientError.unexpected("sendCode") }
        let result = try await call(API.functions.auth.SignIn(phoneNumber: phone, phoneCodeHash: sent.phoneCodeHash, phoneCode: code))
        guard case let .authorization(authorization) = result else { throw TestClientError.unexpected("signIn: \(result)") }
        return authorization.user
    }

    /// The next pushed `Updates` (waits until one arrives or the connection closes).
    public func nextPush() async throws -> API.Updates {
        var iterator = pushes.makeAsyncIterator()
        guard let bytes = await iterator.next() else { throw TestClientError.closed }
        let push = try API.Updates.deserialize(bytes)
        inspector?("push", push)
        return push
    }

    public func close() async {
        await connection.close()
    }
}

public enum TestClientError: Error {
    case unexpected(String)
    case closed
}
