import Foundation
import Logging
import SyncServer
import SyncTesting
import Testing
import TL

/// The PostgreSQL backend over TLS and with the credentials a database the server does not run itself asks for
/// (libpq's `sslmode`, `sslrootcert`, `sslcert`, `sslkey`, `sslpassword` and `passfile` in the URL). The cluster is
/// the test's own (`Scripts/postgres.sh start DIR --tls`: a self-signed certificate for 127.0.0.1, a role that logs
/// in by client certificate and one that logs in by password, which the shared test cluster does not have).
@Suite(.timeLimit(.minutes(3)), .enabled(if: TestPostgres.url != nil))
struct PostgresTLSTests {
    static let logger = Logger(label: "test.postgres-tls")

    @Test func aServerProcessTalksToItsDatabaseOverVerifiedTLSOnly() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-pgtls-\(UUID().uuidString)").path
        let clusterURL = try await PostgresFaultTests.cluster("start", root + "/cluster", ["--tls"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let database = try await TestPostgres.createDatabase(in: clusterURL)
        let verified = database + "?sslmode=verify-full&sslrootcert=" + root + "/cluster/server.crt"
        // The role synccore_cert may only log in with the cluster's client certificate (pg_hba's `cert` method).
        let certified = try Self.url(verified, user: "synccore_cert") + "&sslcert=\(root)/cluster/client.crt&sslkey=\(root)/cluster/client.key"
        let key = try TestServerKey.install(inDirectory: root + "/data")
        let server = try await ServerProcess(executable: ServerProcess.executable(), arguments: [
            "--postgres", certified, "--data", root + "/data", "--seed", "dev", "--login-code", "12345", "--log-level", "critical",
        ])
        let (alice, bob, _) = try await PostgresFaultTests.aliceAndBob(alice: server.port, bob: server.port, key: key)
        let bobInbox = PushInbox(bob)
        let answer = try await alice.call(API.functions.messages.SendMessage(
            peer: try await MultiProcessTests.resolve("bob", in: alice), message: "over TLS", randomId: 42))
        guard case .updateShortSentMessage = answer else { throw TestClientError.unexpected("\(answer)") }
        #expect(await bobInbox.wait(for: 1, seconds: 10))
        #expect(bobInbox.messages.map(\.text) == ["over TLS"])

        // Every connection of the process (pool, group commit, listening) is encrypted, as the cluster sees them.
        #expect(try await TestPostgres.connectionCount(to: database, over: .encrypted) >= 2)
        #expect(try await TestPostgres.connectionCount(to: database, over: .plainTCP) == 0)
        await alice.close()
        await bob.close()
        #expect(await server.stop(), "the server shut down cleanly, its TLS connections closed before they were released")

        // Without its certificate the role is turned away, and the error says why.
        do {
            _ = try await PostgresServerStorage(url: try Self.url(verified, user: "synccore_cert"), logger: Self.logger)
            Issue.record("the certificate-only role logged in without a certificate")
        } catch let error as ServerStorageError {
            #expect("\(error)".contains("requires a valid client certificate"), "\(error)")
        }
        // A key that is not the certificate's, and a key others may read, are refused before any connection.
        let readable = root + "/readable.key"
        try FileManager.default.copyItem(atPath: root + "/cluster/client.key", toPath: readable)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: readable)
        for (key, reason) in [(root + "/cluster/server.key", "cannot set up TLS"), (readable, "has group or world access")] {
            do {
                _ = try PostgresURL.configuration(verified + "&sslcert=\(root)/cluster/client.crt&sslkey=\(key)")
                Issue.record("sslkey \(key) was accepted")
            } catch {
                #expect("\(error)".contains(reason), "\(error)")
            }
        }

        // An encrypted key logs in with its passphrase (sslpassword); without it, or with a wrong one, it is refused
        // with a reason, and the passphrase never shows in the error.
        let encrypted = root + "/encrypted.key"
        try await Self.openssl(["pkey", "-in", root + "/cluster/client.key", "-aes256", "-passout", "pass:hush-42", "-out", encrypted])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: encrypted)
        let withEncryptedKey = try Self.url(verified, user: "synccore_cert") + "&sslcert=\(root)/cluster/client.crt&sslkey=\(encrypted)"
        let unlocked = try await PostgresServerStorage(url: withEncryptedKey + "&sslpassword=hush-42", logger: Self.logger)
        #expect(try await TestPostgres.connectionCount(to: database, over: .encrypted) >= 1)
        await unlocked.close()
        for (password, reason) in [("", "is encrypted: give its passphrase as sslpassword"), ("&sslpassword=wrong-1", "cannot be decrypted")] {
            do {
                _ = try PostgresURL.configuration(withEncryptedKey + password)
                Issue.record("the encrypted key was accepted with \(password.isEmpty ? "no passphrase" : password)")
            } catch {
                #expect("\(error)".contains(reason) && !"\(error)".contains("wrong-1"), "\(error)")
            }
        }

        // A password kept out of the URL: the role synccore_password logs in with the password of its line of a
        // password file (libpq's format; the first matching line wins). A file others may read is refused, and a
        // wrong password is PostgreSQL's refusal.
        let port = try #require(URLComponents(string: clusterURL)?.port)
        let passwordURL = try Self.url(database, user: "synccore_password") + "?sslmode=disable&connect_timeout=30&passfile=" + root + "/pgpass"
        for (lines, mode, reason) in [
            (["# test", "127.0.0.1:\(port):*:synccore_password:synccore-test-password", "*:*:*:*:wrong"], 0o600, nil),
            (["127.0.0.1:\(port):*:synccore_password:synccore-test-password"], 0o640, "has group or world access"),
            (["*:\(port):*:synccore_password:wrong\\:password", "127.0.0.1:*:*:*:synccore-test-password"], 0o600, "password authentication failed"),
        ] as [([String], Int, String?)] {
            _ = FileManager.default.createFile(atPath: root + "/pgpass", contents: Data(lines.joined(separator: "\n").utf8),
                                               attributes: [.posixPermissions: mode])
            // The outcome is one string, so that a failure's own line shows what happened (CI keeps that line).
            var outcome = "logged in"
            do {
                let storage = try await PostgresServerStorage(url: passwordURL, logger: Self.logger)
                await storage.close()
            } catch {
                outcome = "\(error)"
            }
            #expect(outcome.contains(reason ?? "logged in"), "\(lines)")
            try FileManager.default.removeItem(atPath: root + "/pgpass")
        }

        // A certificate no trusted root vouches for (the system's roots, without sslrootcert) is refused, and says so.
        do {
            _ = try await PostgresServerStorage(url: database + "?sslmode=verify-full", logger: Self.logger)
            Issue.record("an unverifiable certificate was accepted")
        } catch let error as ServerStorageError {
            #expect("\(error)".contains("certificate was not verified"), "\(error)")
        }
        // sslmode=disable talks plain text to the same cluster.
        let plain = try await PostgresServerStorage(url: database + "?sslmode=disable", logger: Self.logger)
        #expect(try await TestPostgres.connectionCount(to: database, over: .plainTCP) >= 1)
        #expect(try await TestPostgres.connectionCount(to: database, over: .encrypted) == 0)
        await plain.close()
        await TestPostgres.dropDatabase(database, in: clusterURL)
        _ = try await PostgresFaultTests.cluster("stop", root + "/cluster")
    }

    /// Runs the `openssl` command line tool (which `Scripts/postgres.sh --tls` needs too).
    static func openssl(_ arguments: [String]) async throws {
        let exit = try await ChildProcess.runDiscardingOutput("/usr/bin/env", ["openssl"] + arguments)
        guard exit.isClean else { throw TestClientError.unexpected("openssl \(arguments.joined(separator: " ")) failed: \(exit)") }
    }

    static func url(_ text: String, user: String) throws -> String {
        guard var components = URLComponents(string: text) else { throw TestClientError.unexpected("not a URL: \(text)") }
        components.user = user
        return components.string ?? text
    }

    /// The shared test cluster offers no TLS: `require` must not fall back to plain text.
    @Test func requireRefusesADatabaseWithoutTLS() async throws {
        let database = try await TestPostgres.createDatabase()
        defer { Task { await TestPostgres.dropDatabase(database) } }
        do {
            _ = try await PostgresServerStorage(url: database + "?sslmode=require", logger: Self.logger)
            Issue.record("sslmode=require connected without TLS")
        } catch let error as ServerStorageError {
            #expect("\(error)".contains("does not offer TLS"), "\(error)")
        }
        let preferred = try await PostgresServerStorage(url: database, logger: Self.logger)
        #expect(try await TestPostgres.connectionCount(to: database, over: .plainTCP) >= 1)
        await preferred.close()
    }
}
