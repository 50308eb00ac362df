import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import Synchronization
import SyncTesting
import Testing
import TL
@testable import SyncServer

/// Finding 3 over real sockets: a server with random login codes, eight auth keys guessing Alice's code for 60 s
/// (before: signed in within 2.5 s at ~35k guesses/s). Nobody signs in; a hash asked on one key is expired on
/// another; once the flood wait has passed (the server's clock moved an hour on) Alice logs in with her code.
@Suite(.timeLimit(.minutes(3)))
struct SignInGuessingTests {
    static let guessingSeconds: Double = 60

    @Test func sixtySecondsOfGuessingFromManyKeysNeverSignsIn() async throws {
        let directory = ServerKeysTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let offset = Shared<Int32>(0)
        let clock: @Sendable () -> Int32 = { Int32(clamping: Int64(Date().timeIntervalSince1970)) + offset.value.withLock { $0 } }
        let configuration = SyncServerConfiguration(port: 0, dc: 2, dataDirectory: directory, loginCode: nil, seedDevAccounts: true,
                                                    initialRSAKey: TestServerKey.key)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let storage = try await SyncServer.openStorage(configuration, logger: Logger(label: "test"))
        let server = try await SyncServer.start(configuration, storage: storage, logger: Logger(label: "test"),
                                                group: MultiThreadedEventLoopGroup.singleton, clock: clock)
        let sendCode = API.functions.auth.SendCode(phoneNumber: alicePhone, apiId: 1, apiHash: "x", settings: .codeSettings(.init()))

        // A hash is bound to the key that asked for it.
        let asker = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        let other = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        guard case let .sentCode(sent) = try await asker.call(sendCode) else { Issue.record("no code"); return }
        let code = try #require(await server.context.storage.read { try $0.liveLoginCode(phone: "15550001", now: clock()) })
        await expectRPCError("PHONE_CODE_EXPIRED") {
            try await other.call(API.functions.auth.SignIn(phoneNumber: alicePhone, phoneCodeHash: sent.phoneCodeHash, phoneCode: code))
        }
        await asker.close()
        await other.close()

        let deadline = ContinuousClock.now + .seconds(Self.guessingSeconds)
        let outcome = Shared((guesses: 0, codes: 0, floods: 0, signedIn: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let guesser = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
                    while ContinuousClock.now < deadline {
                        guard case let .sentCode(sent)? = try? await guesser.call(sendCode) else {
                            outcome.value.withLock { $0.floods += 1 }
                            try await Task.sleep(for: .milliseconds(100))
                            continue
                        }
                        outcome.value.withLock { $0.codes += 1 }
                        while ContinuousClock.now < deadline {
                            let guess = String(format: "%05d", Int.random(in: 0..<100_000))
                            outcome.value.withLock { $0.guesses += 1 }
                            do {
                                let result = try await guesser.call(API.functions.auth.SignIn(phoneNumber: alicePhone,
                                                                                               phoneCodeHash: sent.phoneCodeHash, phoneCode: guess))
                                if case .authorization = result { outcome.value.withLock { $0.signedIn += 1 } }
                            } catch let MTProtoClientError.rpc(error) where error.message == "PHONE_CODE_INVALID" {
                                continue
                            } catch {
                                break   // expired (too many wrong codes) or a flood wait: ask for a new code
                            }
                        }
                    }
                    await guesser.close()
                }
            }
            try await group.waitForAll()
        }
        let result = outcome.value.withLock { $0 }
        #expect(result.signedIn == 0)
        #expect(result.codes <= LoginCodes.codesPerPhone)
        #expect(result.guesses > 0 && result.floods > 0)
        print("sign-in guessing: \(result.guesses) guesses, \(result.codes) codes, \(result.floods) flood waits, 0 sign-ins in \(Int(Self.guessingSeconds)) s")

        // Alice, an hour later: a code, and in.
        offset.value.withLock { $0 = LoginCodes.window + 1 }
        let alice = try await TestClient(port: server.port, publicKey: server.keys.rsaKey.publicKey, inspector: checkPeerReferences)
        guard case let .sentCode(mine) = try await alice.call(sendCode) else { Issue.record("no code"); return }
        let aliceCode = try #require(await server.context.storage.read { try $0.liveLoginCode(phone: "15550001", now: clock()) })
        guard case .authorization = try await alice.call(API.functions.auth.SignIn(phoneNumber: alicePhone, phoneCodeHash: mine.phoneCodeHash,
                                                                                   phoneCode: aliceCode))
        else { Issue.record("Alice could not sign in"); return }
        await alice.close()
        try await server.stop()
    }
}

/// A value several tasks share.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
