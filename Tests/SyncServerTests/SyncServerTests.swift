import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import SyncTesting
import Testing
import TL
@testable import SyncServer

struct SyncServerTests {
    @Test func answersGetConfigWithThisDCAndItsRealPortOverTCP() async throws {
        let directory = ServerKeysTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await SyncServer.start(SyncServerConfiguration(port: 0, dc: 2, dataDirectory: directory,
                                                                        initialRSAKey: TestServerKey.key),
                                                logger: Logger(label: "test"))
        let client = try await MTProtoClient.connect(host: "127.0.0.1", port: server.port, framing: .intermediate,
                                                     obfuscated: true, publicKeys: [server.keys.rsaKey.publicKey],
                                                     group: MultiThreadedEventLoopGroup.singleton)
        let wrapped = API.functions.InvokeWithLayer(layer: 229, query: API.functions.InitConnection(
            apiId: 1, deviceModel: "test", systemVersion: "1", appVersion: "1", systemLangCode: "en", langPack: "",
            langCode: "en", query: API.functions.help.GetConfig()))
        guard case let .config(config) = try await client.call(wrapped) else { Issue.record("no config"); return }
        #expect(config.thisDc == 2)
        #expect(config.dcOptions.contains { if case let .dcOption(o) = $0 { return o.port == Int32(server.port) && o.id == 2 } else { return false } })

        do {
            _ = try await client.call(API.functions.users.GetUsers(id: [.inputUserSelf(.init())]))
            Issue.record("users.getUsers succeeded without a login")
        } catch let MTProtoClientError.rpc(error) {
            #expect(error == RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED"))
        }
        do {
            _ = try await client.call(API.functions.auth.ExportAuthorization(dcId: 1))
            Issue.record("auth.exportAuthorization succeeded without a login")
        } catch let MTProtoClientError.rpc(error) {
            #expect(error == RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED"))
        }
        #expect(try await server.keys.authKeyCount(dc: 2) == 1)
        await client.close()
        try await server.stop()
    }

    /// A method of layer 229 that the server does not implement is named in its refusal, over a real socket: before
    /// login with what Telegram answers a key that is not logged in, after it as not supported.
    @Test func aLayerMethodOutsideTheServerIsRefusedByName() async throws {
        let harness = try await ServerHarness()
        let getPassword = TLOpaqueFunction(id: 0x548a_30f5, name: "account.getPassword", arguments: [])
        let anonymous = try await MTProtoClient.connect(host: "127.0.0.1", port: harness.server.port, framing: .intermediate,
                                                        obfuscated: true, publicKeys: [harness.server.keys.rsaKey.publicKey],
                                                        group: MultiThreadedEventLoopGroup.singleton)
        await #expect { _ = try await anonymous.call(getPassword) } throws: {
            if case let .rpc(error)? = $0 as? MTProtoClientError { error == RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED") } else { false }
        }
        let alice = try await harness.loggedIn(alicePhone)
        await #expect { _ = try await alice.call(getPassword) } throws: {
            if case let .rpc(error)? = $0 as? MTProtoClientError {
                error == RPCError(code: 400, message: "METHOD_NOT_SUPPORTED_ACCOUNT_GETPASSWORD")
            } else { false }
        }
        // The session goes on.
        guard case .state = try await alice.call(API.functions.updates.GetState()) else { Issue.record("getState"); return }
        await anonymous.close()
        await alice.close()
        try await harness.stop()
    }

    @Test func routerNamesUnsupportedMethods() {
        #expect(RPCRouter.unsupported("messages.sendMessage") == RPCError(code: 400, message: "METHOD_NOT_SUPPORTED_MESSAGES_SENDMESSAGE"))
        #expect(RPCRouter.worksWithoutLogin("help.getConfig"))
        #expect(!RPCRouter.worksWithoutLogin("updates.getState"))
    }
}
