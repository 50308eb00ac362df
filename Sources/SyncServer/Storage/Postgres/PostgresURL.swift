import Foundation
import NIOCore
import NIOSSL
import PostgresNIO

/// `postgres://user[:password]@host[:port]/database[?parameter=value&…]` (also `postgresql://`), libpq's connection
/// URI (PostgreSQL documentation, "Connection Strings"). The parameters understood are those a deployment needs to
/// reach a database it does not run itself:
/// - `sslmode`: `disable`, `prefer` (libpq's default: TLS when the server offers it, certificate not checked),
///   `require` (TLS or no connection; certificate not checked unless `sslrootcert` is given, as libpq does),
///   `verify-ca` (the certificate must chain to a trusted root) and `verify-full` (and name the host). libpq's
///   `allow` (plain text first) is refused: postgres-nio always asks for TLS first.
/// - `sslrootcert`: the PEM file of the roots to trust, or `system` (the system's roots; libpq 16's spelling, which
///   also asks for `verify-full`). Without it, `verify-ca` and `verify-full` trust the system's roots (libpq would
///   look for `~/.postgresql/root.crt`).
/// - `sslcert` and `sslkey`: the client's certificate (PEM, its chain may follow it) and private key (PEM, readable by
///   its owner only, as libpq asks), for a server that authenticates clients by certificate (`pg_hba.conf`'s `cert`
///   method or `clientcert=verify-full`, which also match the certificate's common name to the user). Both or
///   neither; libpq's defaults under `~/.postgresql/` are not looked for.
/// - `sslpassword`: the passphrase of an encrypted `sslkey` (encrypted PKCS#8 PEM, as `openssl pkey -aes256` writes
///   it); as in libpq, it is not used when the key is not encrypted. It is masked, like the URL's password, wherever the
///   URL is shown.
/// - `host` and `port`: instead of the URL's; a `host` that starts with `/` is the directory of PostgreSQL's Unix
///   socket (`postgres://user@/database?host=/var/run/postgresql`: a database on the same machine without TCP; the
///   `sslmode` is not used there, as libpq does not use it).
/// - `passfile`: the password file to read when the URL has no password and `PGPASSWORD` is not set (else
///   `PGPASSFILE`, else `~/.pgpass`; `PostgresPassfile`), so that the password need not be on the command line.
/// - `connect_timeout`: seconds a connection attempt may take (default 5).
/// - `application_name`: what `pg_stat_activity` shows for the connections (default `synccore`).
///
/// Any other parameter is refused by name: one ignored silently (`sslcrl`, say) would look as if it had been applied.
public enum PostgresURL {
    public static let parameters = ["host", "port", "sslmode", "sslrootcert", "sslcert", "sslkey", "sslpassword",
                                    "passfile", "connect_timeout", "application_name"]

    /// libpq's `sslmode` values this client implements.
    public enum TLSMode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// The connection configuration of the URL `text`; `environment` supplies `PGPASSWORD`, `PGPASSFILE` and `HOME`
    /// when the URL has no password.
    public static func configuration(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> PostgresConnection.Configuration {
        let fail = { (reason: String) in ServerStorageError.cannotOpen(path: redacted(text), reason: reason) }
        guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql" else {
            throw fail("not a postgres://user@host:port/database URL")
        }
        let values = try parameters(of: url, fail: fail)
        guard let host = values["host"] ?? url.host, !host.isEmpty else {
            throw fail("not a postgres://user@host:port/database URL (or postgres://user@/database?host=/socket/directory)")
        }
        var port = url.port ?? 5432
        if let text = values["port"] {
            guard let value = Int(text), (1...65_535).contains(value) else { throw fail("port must be 1…65535") }
            port = value
        }
        let tls = try tls(values, fail: fail)
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        let (user, database) = (url.user ?? "postgres", path.isEmpty ? nil : path)
        // PostgreSQL's default database is the one named after the user, as the password file's lines see it.
        let password = try url.password ?? PostgresPassfile.password(
            for: .init(host: host, port: port, database: database ?? user, user: user), passfile: values["passfile"],
            environment: environment, fail: fail)
        var configuration = if host.hasPrefix("/") {
            PostgresConnection.Configuration(unixSocketPath: host + "/.s.PGSQL.\(port)", username: user, password: password,
                                             database: database)
        } else {
            PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        if let timeout = values["connect_timeout"] {
            guard let seconds = Int64(timeout), seconds > 0 else { throw fail("connect_timeout must be a whole number of seconds above 0") }
            configuration.options.connectTimeout = .seconds(seconds)
        }
        configuration.options.additionalStartupParameters = [("application_name", values["application_name"] ?? "synccore")]
        return configuration
    }

    /// The URL without its secrets (the password and `sslpassword`), for logs and errors.
    public static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text) else { return text }
        let secretParameter = url.queryItems?.contains { $0.name == "sslpassword" } ?? false
        guard url.password != nil || secretParameter else { return text }
        if url.password != nil { url.password = "***" }
        if secretParameter {
            url.queryItems = url.queryItems?.map { $0.name == "sslpassword" ? URLQueryItem(name: $0.name, value: "***") : $0 }
        }
        return url.string ?? "postgres://…"
    }

    /// What went wrong with TLS when connecting, in the URL's terms; nil for other failures.
    static func tlsFailure(_ error: PSQLError) -> String? {
        if error.code == .sslUnsupported { return "the server does not offer TLS, which the URL's sslmode requires" }
        switch error.underlying {
        case let failure as NIOSSLExtraError:
            return "the server's TLS certificate does not name the host (sslmode=verify-full): \(failure)"
        case let failure as NIOSSLError where "\(failure)".contains("CERTIFICATE_VERIFY_FAILED"):
            return "the server's TLS certificate was not verified: no trusted root vouches for it (sslrootcert names the roots to trust): \(failure)"
        case let failure as NIOSSLError:
            return "the TLS handshake failed: \(failure)"
        default:
            return nil
        }
    }

    private static func parameters(of url: URLComponents, fail: (String) -> ServerStorageError) throws -> [String: String] {
        var values: [String: String] = [:]
        for item in url.queryItems ?? [] {
            guard parameters.contains(item.name) else {
                throw fail("unsupported URL parameter \(item.name) (supported: \(parameters.joined(separator: ", ")))")
            }
            guard let value = item.value, !value.isEmpty else { throw fail("URL parameter \(item.name) has no value") }
            guard values.updateValue(value, forKey: item.name) == nil else { throw fail("URL parameter \(item.name) is given twice") }
        }
        return values
    }

    /// The TLS of `sslmode`, `sslrootcert`, `sslcert` and `sslkey`, with the checks libpq makes of the server's
    /// certificate in each mode.
    private static func tls(_ values: [String: String], fail: (String) -> ServerStorageError) throws -> PostgresConnection.Configuration.TLS {
        let root = values["sslrootcert"]
        let modeText = values["sslmode"] ?? (root == "system" ? TLSMode.verifyFull.rawValue : TLSMode.prefer.rawValue)
        guard let mode = TLSMode(rawValue: modeText) else {
            throw fail("unsupported sslmode \(modeText) (supported: \(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        if root == "system", mode != .verifyFull { throw fail("sslrootcert=system asks for sslmode=verify-full") }
        guard mode != .disable else {
            if values["sslcert"] != nil || values["sslkey"] != nil || values["sslpassword"] != nil {
                throw fail("sslcert, sslkey and sslpassword need TLS, which sslmode=disable turns off")
            }
            return .disable
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        try clientCertificate(values, into: &configuration, fail: fail)
        switch mode {
        case .verifyFull: configuration.certificateVerification = .fullVerification
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .require: configuration.certificateVerification = root == nil ? .none : .noHostnameVerification
        case .prefer, .disable: configuration.certificateVerification = .none
        }
        if let root, root != "system", configuration.certificateVerification != .none {
            guard FileManager.default.isReadableFile(atPath: root) else { throw fail("sslrootcert \(root) cannot be read") }
            configuration.trustRoots = .file(root)
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw fail("cannot set up TLS: \(error)")
        }
        return mode == .prefer ? .prefer(context) : .require(context)
    }

    /// The client certificate and key of `sslcert` and `sslkey` (decrypted with `sslpassword`). A key that does not
    /// belong to the certificate is refused when the TLS context is made (BoringSSL checks the pair), before any
    /// connection.
    private static func clientCertificate(_ values: [String: String], into configuration: inout TLSConfiguration,
                                          fail: (String) -> ServerStorageError) throws {
        switch (values["sslcert"], values["sslkey"]) {
        case (nil, nil):
            if values["sslpassword"] != nil { throw fail("sslpassword is the passphrase of sslkey, which is not given") }
            return
        case let (certificate?, key?):
            guard FileManager.default.isReadableFile(atPath: certificate) else { throw fail("sslcert \(certificate) cannot be read") }
            guard FileManager.default.isReadableFile(atPath: key) else { throw fail("sslkey \(key) cannot be read") }
            try checkPrivate(key, named: "sslkey", rootMayShareWithGroup: true, fail: fail)
            do {
                configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
            } catch {
                throw fail("sslcert \(certificate) is not a PEM certificate: \(error)")
            }
            guard !configuration.certificateChain.isEmpty else { throw fail("sslcert \(certificate) holds no certificate") }
            configuration.privateKey = .privateKey(try privateKey(key, password: values["sslpassword"], fail: fail))
        default:
            throw fail("sslcert and sslkey go together: give both or neither")
        }
    }

    /// The PEM key at `path`. BoringSSL asks for a passphrase only when the key is encrypted: then `password` is
    /// given, or the key is refused with a reason that names `sslpassword` (never a prompt on the terminal, which
    /// BoringSSL's default would try).
    private static func privateKey(_ path: String, password: String?, fail: (String) -> ServerStorageError) throws -> NIOSSLPrivateKey {
        var asked = false
        do {
            return try NIOSSLPrivateKey(file: path, format: .pem) { (supply: NIOSSLPassphraseSetter<[UInt8]>) in
                asked = true
                if let password { supply(Array(password.utf8)) }
            }
        } catch {
            switch (asked, password) {
            case (true, nil): throw fail("sslkey \(path) is encrypted: give its passphrase as sslpassword")
            case (true, _?): throw fail("sslkey \(path) cannot be decrypted with the sslpassword given: \(error)")
            case (false, _): throw fail("sslkey \(path) is not a PEM private key: \(error)")
            }
        }
    }

    /// Refuses a file of secrets (`what` names its parameter) that its group or others may use, as libpq does: a key
    /// or password left readable is a credential anyone on the machine may take. The group may read it when root
    /// owns it and `rootMayShareWithGroup` (libpq allows that for keys: one shared with a service account). A file
    /// whose mode cannot be read is left to its reader.
    static func checkPrivate(_ path: String, named what: String, rootMayShareWithGroup: Bool,
                             fail: (String) -> ServerStorageError) throws {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue else { return }
        let groupMayRead = rootMayShareWithGroup && (attributes[.ownerAccountID] as? NSNumber)?.intValue == 0
        guard permissions & (groupMayRead ? 0o037 : 0o077) == 0 else {
            throw fail("\(what) \(path) has group or world access (mode \(String(permissions, radix: 8))); it must be u=rw (0600) or less" +
                       (groupMayRead ? ", or u=rw,g=r (0640) when owned by root" : ""))
        }
    }
}
