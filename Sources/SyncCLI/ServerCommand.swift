import ArgumentParser
import Dispatch
import Foundation
import Logging
import MTProto
import MTProtoNIO
import NIOPosix
import SyncServer
import TL

/// `synccore server`: runs one data center of the reference server until SIGINT or SIGTERM.
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Run the reference server (MTProto 2.0 over TCP, API layer 229).",
        discussion: """
        Creates a 2048-bit RSA key in the data directory on first start and keeps it, with every auth key, across \
        restarts. Accepts abridged, intermediate, padded intermediate and full transports, plain or obfuscated. \
        Accounts log in with a phone code (auth.sendCode/signIn/signUp/logOut, PHONE_MIGRATE_X to the home DC, \
        exportAuthorization/importAuthorization between DCs); users send (and reply), edit, delete, pin and read messages, \
        create, join and leave channels and supergroups and post in them, page history and dialogs, and catch up \
        with updates.getState/getDifference/getChannelDifference; online sessions get pushes. Users, logins, \
        messages, channels and update logs live in server.sqlite in the data directory, or with --postgres in a \
        PostgreSQL database that several server processes may share (each pushes what the others commit; processes \
        of one DC share its data directory for the keys). Methods not listed get rpc_error 400 \
        METHOD_NOT_SUPPORTED_<METHOD>.
        """
    )

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "TCP port (0 picks a free one and prints it).") var port = 4430
    @Option(help: "The address clients are told to use (help.getConfig's dc_options), HOST or HOST:PORT: a load balancer's, when clients reach this process through one (default: --host and the bound port).")
    var advertise: String?
    @Option(help: "Data center id (help.getConfig's this_dc) when one DC is served.") var dc: Int32 = 2
    @Option(help: "Serve DCs 1…N from this process on consecutive ports from --port (free ports with --port 0).")
    var dcs = 1
    @Option(help: "Data directory: the embedded SQLite store; with --postgres nothing another process needs (the keys are in the database), and an rsa-key.txt put here is imported at start.") var data = "./.synccore/server"
    @Option(help: "Keep the data in this PostgreSQL database (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=verify-full&sslrootcert=FILE], libpq's sslmode, sslrootcert, sslcert, sslkey and sslpassword (a client certificate and its key's passphrase), host (a /directory: the Unix socket), port, passfile, connect_timeout and application_name; without a password in the URL, PGPASSWORD or the password file, PGPASSFILE or ~/.pgpass, as libpq) instead of SQLite; the schema is created or migrated on start.")
    var postgres: String?
    @Option(help: "With --postgres: connections in the pool, the transactions that may run at once.")
    var postgresConnections = 16
    @Option(help: "With --postgres: seconds a statement may go unanswered before its connection is closed and the request fails with a 500 (a database gone without closing its sockets); the listening connection is probed as often.")
    var postgresDeadline: Double = 30
    @Option(help: "With --postgres: seconds a start waits for a database that does not answer yet (refused, starting up), trying again with backoff and logging each wait; 0 gives up at once.")
    var postgresWait: Double = 60
    @Option(help: "Write the server's public key (PKCS#1 PEM) to this file and continue.") var exportPublicKey: String?
    @Option(help: "MTProxy secret in hex: 32 digits, 34 with the dd prefix (padded), or ee + 32 digits + a domain in hex (fake-TLS). Only connections using it are accepted.")
    var secret: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
    @Option(help: """
        Seed accounts: 'dev' creates +15550001 Alice @alice, +15550002 Bob @bob, +15550003 Carol @carol, the broadcast \
        channel @news (Alice's) and the supergroup @lounge (all three); with --dcs N home DCs go round 1…N.
        """)
    var seed: String?
    @Option(help: "Fixed login code for development (otherwise each code is random and written to the log).")
    var loginCode: String?
    @Option(help: "Events per updates.differenceSlice.") var differencePage = 1_000
    @Option(help: "A pts gap above this gets updates.differenceTooLong.") var tooLong = 1_000_000
    @Option(help: "A channel pts gap above this gets updates.channelDifferenceTooLong.") var channelTooLong = 10_000
    @Option(help: "Each user's messages.sendMessage rate per second (as many in a burst); above it FLOOD_WAIT_X. 0: no limit.")
    var sendRate: Double = 10_000
    @Option(help: "Serve Prometheus metrics (GET /metrics) on this port: sessions, RPCs per method, pushes, differences, pts.")
    var metricsPort: Int?
    @Option(help: "Event-loop threads that serve the clients and talk to PostgreSQL (default: one per core). Several processes on one machine: give each its share of the cores.")
    var eventLoops: Int?
    @Option(help: "Serve the signed config blob of endpoint discovery (every DC's address, sealed with the server's RSA key) at this http://HOST:PORT/PATH.")
    var configURL: String?
    @Option(help: """
        Connections open at once, in all (within the descriptors the process may open, less 256; the soft limit is raised \
        to the hard one at start); past it a new connection takes the place of the oldest one that has not finished a \
        key exchange, or is closed when every one has.
        """) var maxConnections = 10_000
    @Option(help: "Connections open at once from one IP address.") var maxConnectionsPerAddress = 1_000
    @Flag(help: """
        Every connection starts with a PROXY protocol header (version 1 or 2: HAProxy's send-proxy-v2, nginx's \
        proxy_protocol on) naming the client's address, which the per-address limits count; a connection without one is \
        closed. For a server behind a TCP load balancer, reachable only through it.
        """) var proxyProtocol = false
    @Option(help: "Seconds a connection may go without completing a frame (clients ping every 60 s) before it is closed.")
    var idleTimeout = 300.0
    @Option(help: "The largest file a user may upload, in bytes or with K, M or G (binary units): 1K up to Telegram's 4,000 parts of 512 KiB (2000M), the default (FILE_PARTS_INVALID above it).",
            transform: { try ServerCommand.size($0, within: 1024...ServerCommand.protocolFileLimit,
                                                refusal: "--max-file-size must be 1K…2000M (4,000 parts of 512 KiB), as digits with K, M or G") })
    var maxFileSize: Int64 = ServerCommand.protocolFileLimit
    @Option(help: "What one user may keep, their stored files and uploads in progress, in bytes or with K, M or G (UPLOAD_QUOTA_EXCEEDED above it; default 20G).",
            transform: { try ServerCommand.size($0, within: 0...Int64.max, refusal: "--user-quota must be a size: digits with K, M or G") })
    var userQuota: Int64 = 20 << 30

    func validate() throws {
        if let secret, bytesFromHex(secret).flatMap(ProxySecretKind.init) == nil {
            throw ValidationError("--secret must be \(ProxySecretKind.expectedForm)")
        }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("unknown --log-level \(logLevel)") }
        if let seed, seed != "dev" { throw ValidationError("unknown --seed \(seed) (only 'dev' exists)") }
        if let loginCode, loginCode.isEmpty || !loginCode.allSatisfy(\.isNumber) {
            throw ValidationError("--login-code must be digits")
        }
        if differencePage < 1 || tooLong < 1 || channelTooLong < 1 {
            throw ValidationError("--difference-page, --too-long and --channel-too-long must be positive")
        }
        if dcs < 1 || dcs > 5 { throw ValidationError("--dcs must be 1…5") }
        if sendRate < 0 { throw ValidationError("--send-rate must not be negative") }
        if let eventLoops, !(1...256).contains(eventLoops) { throw ValidationError("--event-loops must be 1…256") }
        if !(1...1_000).contains(postgresConnections) { throw ValidationError("--postgres-connections must be 1…1000") }
        if !(0...86_400).contains(postgresWait) { throw ValidationError("--postgres-wait must be 0…86400 seconds") }
        if let advertise { _ = try Self.address(advertise) }
        if !(postgresDeadline >= 0.1 && postgresDeadline <= 86_400) { throw ValidationError("--postgres-deadline must be 0.1…86400 seconds") }
        if maxConnections < 1 || maxConnectionsPerAddress < 1 {
            throw ValidationError("--max-connections and --max-connections-per-address must be positive")
        }
        if !(idleTimeout >= 1 && idleTimeout <= 86_400) { throw ValidationError("--idle-timeout must be 1…86400 seconds") }
        if let configURL, (try? PlainHTTPURL(configURL)) == nil {
            throw ValidationError("--config-url must be http://HOST:PORT/PATH")
        }
    }

    func run() async throws {
        var logger = Logger(label: "synccore.server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var configuration = SyncServerConfiguration(host: host, port: port, dc: dc, dataDirectory: data,
                                                    secret: secret.flatMap(bytesFromHex), loginCode: loginCode,
                                                    seedDevAccounts: seed == "dev", differencePageSize: differencePage,
                                                    tooLongThreshold: tooLong, channelTooLongThreshold: channelTooLong,
                                                    sendsPerSecond: sendRate, dcCount: dcs, metricsPort: metricsPort,
                                                    configURL: configURL, postgresURL: postgres,
                                                    postgresConnections: postgresConnections,
                                                    postgresStatementDeadline: .milliseconds(Int64(postgresDeadline * 1_000)))
        configuration.postgresWait = .milliseconds(Int64(postgresWait * 1_000))
        if let advertise {
            let (host, port) = try Self.address(advertise)
            configuration.advertisedHost = host
            configuration.advertisedPort = port
        }
        configuration.connectionLimits.connections = maxConnections
        configuration.connectionLimits.connectionsPerAddress = maxConnectionsPerAddress
        configuration.connectionLimits.proxyProtocol = proxyProtocol
        configuration.connectionLimits.readDeadline.idle = idleTimeout
        configuration.maximumFileSize = maxFileSize
        configuration.userStorageQuota = userQuota
        let group = eventLoops.map { MultiThreadedEventLoopGroup(numberOfThreads: $0) }
        let server: SyncServer
        do {
            server = try await SyncServer.start(configuration, logger: logger, group: group ?? MultiThreadedEventLoopGroup.singleton)
        } catch {
            try? await group?.shutdownGracefully()
            throw error
        }
        if let exportPublicKey {
            try server.keys.rsaKey.publicKey.pkcs1PEM().write(toFile: exportPublicKey, atomically: true, encoding: .utf8)
            logger.info("wrote public key", metadata: ["path": "\(exportPublicKey)"])
        }
        // Unbuffered, so scripts waiting for these lines see them at once.
        for (dc, port) in server.ports.sorted(by: { $0.key < $1.key }) {
            FileHandle.standardOutput.write(Data("synccore server: dc \(dc) listening on \(host):\(port)\n".utf8))
        }
        if let port = server.metricsPort {
            FileHandle.standardOutput.write(Data("synccore server: metrics on http://\(host):\(port)/metrics\n".utf8))
        }
        await Self.waitForTermination()
        try await server.stop()
        try await group?.shutdownGracefully()
        logger.info("stopped")
    }

    /// Suspends until SIGINT or SIGTERM.
    static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = SignalOnce(continuation)
            for signalNumber in [SIGINT, SIGTERM] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler { once.fire() }
                source.resume()
                once.keep(source)
            }
        }
    }
}

/// Resumes a continuation exactly once, from whichever signal comes first.
private final class SignalOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation = continuation
    }

    func keep(_ source: any DispatchSourceSignal) {
        lock.withLock { sources.append(source) }
    }

    func fire() {
        let pending = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            defer { continuation = nil }
            return continuation
        }
        pending?.resume()
    }
}

extension ServerCommand {
    /// The largest file the upload rules can carry: 4,000 parts of 512 KiB (core.telegram.org/api/files).
    static let protocolFileLimit: Int64 = 4_000 * 512 * 1024

    /// A size as `--max-file-size` and `--user-quota` take it: digits, then nothing (bytes) or K, M, G (KiB, MiB, GiB;
    /// "KiB" and the like too); nil for anything else or above 2^62.
    static func byteCount(_ text: String) -> Int64? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 19, let value = Int64(digits) else { return nil }
        let shifts: [String: Int64] = ["": 0, "k": 10, "kib": 10, "m": 20, "mib": 20, "g": 30, "gib": 30]
        guard let shift = shifts[text.dropFirst(digits.count).lowercased()], value <= (Int64(1) << (62 - shift)) else { return nil }
        return value << shift
    }

    /// `--max-file-size` and `--user-quota` parsed once, by the argument parser: a size within `range`, or `refusal`.
    static func size(_ text: String, within range: ClosedRange<Int64>, refusal: String) throws -> Int64 {
        guard let bytes = byteCount(text), range.contains(bytes) else { throw ValidationError(refusal) }
        return bytes
    }

    /// `HOST` or `HOST:PORT` (`[IPv6]:PORT`) of `--advertise`.
    static func address(_ text: String) throws -> (host: String, port: Int?) {
        let fail = ValidationError("--advertise must be HOST or HOST:PORT (a port 1…65535; an IPv6 address in brackets)")
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65_535).contains(port) else { throw fail }
            return (host, port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.count <= 2, !parts[0].isEmpty else { throw fail }
        guard parts.count == 2 else { return (text, nil) }
        guard let port = Int(parts[1]), (1...65_535).contains(port) else { throw fail }
        return (String(parts[0]), port)
    }
}
