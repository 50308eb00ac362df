import Foundation
import Logging
import NIOPosix
import SyncTesting
import Testing
@testable import SyncServer

/// What only the PostgreSQL backend has: its configuration check in CI, URLs, schema versions, announcements.
@Suite(.timeLimit(.minutes(2)))
struct PostgresBackendTests {
    /// `.ci/run` starts a cluster and asks for it: the PostgreSQL half of every parameterized test must not vanish
    /// silently because the cluster did not start.
    @Test func theTestClusterIsThereWhenRequired() {
        if ProcessInfo.processInfo.environment["SYNCCORE_REQUIRE_POSTGRES"] == "1" {
            #expect(TestPostgres.url != nil && StorageBackend.all.contains(.postgres))
        }
    }

    @Test func urlsAreParsedAndPasswordsKeptOutOfMessages() throws {
        let configuration = try PostgresURL.configuration("postgres://sync:secret@db.example:6543/chat")
        #expect(configuration.host == "db.example" && configuration.port == 6543)
        #expect(configuration.username == "sync" && configuration.password == "secret" && configuration.database == "chat")
        #expect(PostgresURL.redacted("postgres://sync:secret@db.example/chat") == "postgres://sync:***@db.example/chat")
        #expect(PostgresURL.redacted("postgres://sync@db.example/chat?sslkey=k.pem&sslpassword=hush&sslmode=require")
                == "postgres://sync@db.example/chat?sslkey=k.pem&sslpassword=***&sslmode=require")
        #expect(PostgresURL.redacted("postgres://sync@db.example/chat?sslmode=require") == "postgres://sync@db.example/chat?sslmode=require")
        #expect(throws: ServerStorageError.self) { try PostgresURL.configuration("mysql://db.example/chat") }
        #expect(throws: ServerStorageError.self) { try PostgresURL.configuration("postgres:///nohost") }
    }

    /// libpq's order when the URL has no password: `PGPASSWORD`, then the password file (`passfile`, `PGPASSFILE`,
    /// `~/.pgpass`), whose first matching line wins; `*` matches anything and `\:` is a colon.
    @Test func passwordsComeFromTheEnvironmentOrAPasswordFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synccore-pgpass-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func write(_ name: String, _ lines: [String], mode: Int = 0o600) {
            _ = FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(lines.joined(separator: "\n").utf8),
                                               attributes: [.posixPermissions: mode])
        }
        write(".pgpass", ["# comment", "db.example:5432:chat:sync:from\\:home", "*:*:*:*:fallback"])
        write("named", ["db.example:*:*:sync:from-named"])
        write("open", ["*:*:*:*:x"], mode: 0o644)
        let url = "postgres://sync@db.example/chat"
        let home = ["HOME": directory]
        #expect(try PostgresURL.configuration(url, environment: home).password == "from:home")
        #expect(try PostgresURL.configuration("postgres://other@db.example/chat", environment: home).password == "fallback")
        #expect(try PostgresURL.configuration(url + "?passfile=\(directory)/named", environment: home).password == "from-named")
        #expect(try PostgresURL.configuration(url, environment: home.merging(["PGPASSFILE": directory + "/named"]) { $1 }).password == "from-named")
        #expect(try PostgresURL.configuration(url, environment: home.merging(["PGPASSWORD": "from-env"]) { $1 }).password == "from-env")
        #expect(try PostgresURL.configuration("postgres://sync:in-url@db.example/chat", environment: home).password == "in-url")
        #expect(try PostgresURL.configuration(url, environment: [:]).password == nil)
        #expect(try PostgresURL.configuration("postgres://sync@db.example:6000/chat?passfile=\(directory)/named",
                                              environment: [:]).password == "from-named")
        // A socket connection matches `localhost` too; a database left out is the user's.
        #expect(PostgresPassfile.password(for: .init(host: "/run/postgresql", port: 5432, database: "sync", user: "sync"),
                                          in: "localhost:5432:sync:sync:socket") == "socket")
        #expect(PostgresPassfile.fields(of: "a\\\\b:1:db:u:p:with:colons") == ["a\\b", "1", "db", "u", "p:with:colons"])
        for (query, reason) in [("?passfile=\(directory)/open", "group or world access"), ("?passfile=\(directory)/none", "does not exist")] {
            #expect(throws: ServerStorageError.self, "\(query)") { try PostgresURL.configuration(url + query, environment: home) }
            do { _ = try PostgresURL.configuration(url + query, environment: home) } catch { #expect("\(error)".contains(reason), "\(error)") }
        }
    }

    /// libpq's parameters: `prefer` when none is given, `require` and the verifying modes enforce TLS, `disable`
    /// turns it off; anything the client would not apply is refused by name instead of being ignored.
    @Test func urlParametersChooseTLSAndTimeoutsAndUnknownOnesAreRefused() throws {
        let base = "postgres://sync@db.example/chat"
        let preferred = try PostgresURL.configuration(base)
        #expect(preferred.tls.isAllowed && !preferred.tls.isEnforced)
        #expect(preferred.options.connectTimeout == .seconds(5))
        #expect(preferred.options.additionalStartupParameters.map { "\($0.0)=\($0.1)" } == ["application_name=synccore"])
        #expect(try !PostgresURL.configuration(base + "?sslmode=disable").tls.isAllowed)
        for mode in ["require", "verify-ca", "verify-full"] {
            #expect(try PostgresURL.configuration(base + "?sslmode=" + mode).tls.isEnforced, "\(mode)")
        }
        #expect(try PostgresURL.configuration(base + "?sslrootcert=system").tls.isEnforced)
        let socket = try PostgresURL.configuration("postgres://sync@/chat?host=/var/run/postgresql&port=5433&sslmode=require")
        #expect(socket.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5433" && socket.database == "chat" && !socket.tls.isAllowed)
        #expect(try PostgresURL.configuration(base + "?host=db2.example&port=6000").host == "db2.example")
        let tuned = try PostgresURL.configuration(base + "?connect_timeout=12&application_name=dc2-a")
        #expect(tuned.options.connectTimeout == .seconds(12))
        #expect(tuned.options.additionalStartupParameters.map { "\($0.0)=\($0.1)" } == ["application_name=dc2-a"])

        let refusals = [
            ("?sslmode=allow", "unsupported sslmode allow"), ("?sslcert=client.pem", "sslcert and sslkey go together"),
            ("?sslcert=/nonexistent/c.pem&sslkey=/nonexistent/k.pem", "sslcert /nonexistent/c.pem cannot be read"),
            ("?sslmode=disable&sslcert=c.pem&sslkey=k.pem", "need TLS"), ("?sslpassword=secret", "sslkey, which is not given"),
            ("?sslmode=disable&sslpassword=secret", "need TLS"), ("?sslcrl=crl.pem", "unsupported URL parameter sslcrl"),
            ("?sslmode=require&sslmode=disable", "given twice"), ("?connect_timeout=0", "connect_timeout"),
            ("?sslmode=require&sslrootcert=/nonexistent/root.pem", "sslrootcert /nonexistent/root.pem cannot be read"),
            ("?sslmode=require&sslrootcert=system", "verify-full"), ("?application_name=", "has no value"),
            ("?port=70000", "port must be"),
        ]
        for (query, reason) in refusals {
            do {
                _ = try PostgresURL.configuration("postgres://sync:secret@db.example/chat" + query)
                Issue.record("\(query) was accepted")
            } catch {
                #expect("\(error)".contains(reason) && !"\(error)".contains("secret"), "\(query): \(error)")
            }
        }
    }

    @Test func announcementsRoundTripAndSplitUnderThePayloadLimit() {
        let events = (1...2_000).map { (index: Int) -> CommittedEvent in
            let box: PeerRef = index % 2 == 0 ? .user(Int64(index)) : .channel(Int64(index))
            return CommittedEvent(box: box, pts: Int32(index), ptsCount: 1, sequenced: index % 4 == 0)
        }
        let payloads = CommitAnnouncement.payloads(events, origin: 77)
        #expect(payloads.count > 1 && payloads.allSatisfy { $0.utf8.count <= CommitAnnouncement.payloadLimit })
        var parsed: [CommittedEvent] = []
        for payload in payloads {
            guard case let .committed(origin, part)? = CommitAnnouncement.parse(payload) else { Issue.record("unparsed"); return }
            #expect(origin == 77)
            parsed += part
        }
        #expect(parsed == events)
        #expect(CommitAnnouncement.parse("garbage") == nil && CommitAnnouncement.parse("1 x:1:2:3") == nil)
        #expect(CommitAnnouncement.payloads([], origin: 1).isEmpty)
        #expect(CommitAnnouncement.parse(CommitAnnouncement.profileChanged(1001)) == .profileChanged(userID: 1001))
    }

    /// A batch's consecutive events of one box are announced as one range; a gap or another box starts a new one.
    @Test func consecutiveEventsOfABoxAreAnnouncedAsOneRange() {
        let events = [CommittedEvent(box: .user(1), pts: 5, ptsCount: 1), CommittedEvent(box: .user(2), pts: 8, ptsCount: 1),
                      CommittedEvent(box: .user(1), pts: 7, ptsCount: 2), CommittedEvent(box: .user(2), pts: 9, ptsCount: 1),
                      CommittedEvent(box: .user(1), pts: 9, ptsCount: 1), CommittedEvent(box: .channel(1), pts: 3, ptsCount: 1)]
        #expect(CommitAnnouncement.merged(events) == [
            CommittedEvent(box: .user(1), pts: 7, ptsCount: 3), CommittedEvent(box: .user(2), pts: 9, ptsCount: 2),
            CommittedEvent(box: .user(1), pts: 9, ptsCount: 1), CommittedEvent(box: .channel(1), pts: 3, ptsCount: 1),
        ])
        #expect(CommitAnnouncement.payloads(events, origin: 4) == ["4 u:1:7:3 u:2:9:2 u:1:9:1 c:1:3:1"])
        // A user's seq log is a range of its own beside the box's pts.
        let mixed = [CommittedEvent(box: .user(1), pts: 5, ptsCount: 1), CommittedEvent(box: .user(1), pts: 6, ptsCount: 1, sequenced: true),
                     CommittedEvent(box: .user(1), pts: 6, ptsCount: 1), CommittedEvent(box: .user(1), pts: 7, ptsCount: 1, sequenced: true)]
        #expect(CommitAnnouncement.payloads(mixed, origin: 4) == ["4 u:1:6:2 s:1:7:2"])
    }

    /// A storage dropped without `close()` (a task that threw before it, in a test or a server) lets its connections
    /// close on their own: postgres-nio's debug builds stop the process on a connection deallocated open.
    @Test(.enabled(if: TestPostgres.url != nil)) func aStorageDroppedWithoutClosingClosesItsConnections() async throws {
        let url = try await TestPostgres.createDatabase()
        do {
            let storage = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
            try await storage.write { tx in try tx.insert(UserRecord(id: 1, accessHash: 1, phone: "1", firstName: "A", homeDC: 2)) }
            #expect(try await storage.read { try $0.user(id: 1)?.firstName } == "A")
        }
        try await Task.sleep(for: .milliseconds(500))   // the closes complete; this process is still here
        await TestPostgres.dropDatabase(url)
    }

    /// A database written by a newer build is refused, not misread; an unreachable server is a clear error.
    @Test(.enabled(if: TestPostgres.url != nil)) func newerSchemasAndUnreachableServersAreRefused() async throws {
        let url = try await TestPostgres.createDatabase()
        let storage = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        try await storage.write { tx in try tx.insert(UserRecord(id: 1, accessHash: 1, phone: "1", firstName: "A", homeDC: 2)) }
        await storage.close()
        let reopened = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        #expect(try await reopened.read { try $0.user(id: 1)?.firstName } == "A")
        await reopened.close()
        try await TestPostgres.execute("INSERT INTO synccore_schema (version) VALUES (99)", in: url)
        await #expect { _ = try await PostgresServerStorage(url: url, logger: Logger(label: "test")) } throws: { error in
            "\(error)".contains("schema 99")
        }
        await TestPostgres.dropDatabase(url)
        await #expect(throws: ServerStorageError.self) {
            _ = try await PostgresServerStorage(url: "postgres://nobody@127.0.0.1:1/none", logger: Logger(label: "test"))
        }
    }

    /// A read's statements see one moment (`REPEATABLE READ`): a commit between its state read and its log read is
    /// in neither, as a difference needs (under PostgreSQL's default, the log read would see it).
    @Test(.enabled(if: TestPostgres.url != nil)) func aReadSeesOneSnapshot() async throws {
        let url = try await TestPostgres.createDatabase()
        let storage = try await PostgresServerStorage(url: url, logger: Logger(label: "test"))
        try await storage.write { tx in try Self.appendEvent(pts: 1, in: tx) }
        let stateRead = DispatchSemaphore(value: 0), committed = DispatchSemaphore(value: 0)
        async let snapshot = storage.read { tx -> (Int32, [Int32]) in
            let pts = try tx.state(user: 1).pts
            stateRead.signal()
            committed.wait()
            return (pts, try tx.events(user: 1, afterPts: 0, limit: 10).map(\.pts))
        }
        await withCheckedContinuation { continuation in DispatchQueue.global().async { stateRead.wait(); continuation.resume() } }
        try await storage.write { tx in try Self.appendEvent(pts: 2, in: tx) }
        committed.signal()
        let (pts, events) = try await snapshot
        #expect(pts == 1 && events == [1])
        await storage.close()
        await TestPostgres.dropDatabase(url)
    }

    /// Given the server's event-loop group (`synccore server --event-loops`), the storage keeps its connections, its
    /// group commit and its listening there, so statements complete on the threads that serve the clients.
    @Test(.enabled(if: TestPostgres.url != nil)) func theStorageLivesOnTheGroupItIsGiven() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let url = try await TestPostgres.createDatabase()
        let storage = try await PostgresServerStorage(url: url, eventLoopGroup: group, logger: Logger(label: "test"))
        try await storage.write { tx in try Self.appendEvent(pts: 1, in: tx) }
        #expect(try await storage.events(in: [LogRange(user: 1, after: 0, upTo: 1)])[1]?.map(\.pts) == [1])
        #expect(try await storage.pool.run { session in session.connection.eventLoop === loop })
        #expect(storage.commits.eventLoop === loop && storage.commitFeed?.eventLoop === loop)
        await storage.close()
        await TestPostgres.dropDatabase(url)
        try await group.shutdownGracefully()
    }

    /// A database on the same machine through its Unix socket (`?host=/directory`): the storage works and none of
    /// its connections is TCP.
    @Test(.enabled(if: TestPostgres.url != nil)) func aDatabaseIsReachedThroughItsUnixSocket() async throws {
        let url = try await TestPostgres.createDatabase()
        guard var components = URLComponents(string: url) else { throw TestPostgresError.badURL(url) }
        components.host = ""
        components.port = nil
        components.queryItems = [URLQueryItem(name: "host", value: try await TestPostgres.socketDirectory()),
                                 URLQueryItem(name: "port", value: URLComponents(string: url)?.port.map(String.init))]
        let storage = try await PostgresServerStorage(url: components.string ?? url, logger: Logger(label: "test"))
        try await storage.write { tx in try Self.appendEvent(pts: 1, in: tx) }
        #expect(try await storage.events(in: [LogRange(user: 1, after: 0, upTo: 1)])[1]?.map(\.pts) == [1])
        #expect(try await TestPostgres.connectionCount(to: url, over: .unixSocket) >= 2)
        #expect(try await TestPostgres.connectionCount(to: url, over: .plainTCP) == 0)
        await storage.close()
        await TestPostgres.dropDatabase(url)
    }

    private static func appendEvent(pts: Int32, in tx: any StorageWriter) throws {
        try tx.lockBoxes(users: [1])
        try tx.append(StoredEvent(pts: pts, ptsCount: 1, date: pts, update: [1]), user: 1)
        try tx.setState(UserState(pts: pts), user: 1)
    }
}
