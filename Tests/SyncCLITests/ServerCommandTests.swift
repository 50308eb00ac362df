import Testing

/// `synccore server`'s options: values out of range are refused before anything starts, naming the option.
@Suite(.timeLimit(.minutes(2)))
struct ServerCommandTests {
    @Test(arguments: [
        (["--event-loops", "0"], "--event-loops must be 1…256"),
        (["--event-loops", "100000"], "--event-loops must be 1…256"),
        (["--dcs", "9"], "--dcs must be 1…5"),
        (["--send-rate=-1"], "--send-rate must not be negative"),
        (["--postgres", "postgres://sync@127.0.0.1:1/chat?sslcert=client.pem"], "sslcert and sslkey go together"),
        (["--postgres", "postgres://sync@127.0.0.1:1/chat?sslcrl=crl.pem"], "unsupported URL parameter sslcrl"),
        (["--postgres", "postgres://sync@127.0.0.1:1/chat?sslpassword=hush-7"], "chat?sslpassword=***: sslpassword is the passphrase of sslkey"),
        (["--postgres-connections", "0"], "--postgres-connections must be 1…1000"),
        (["--postgres-deadline", "0"], "--postgres-deadline must be 0.1…86400 seconds"),
        (["--postgres-wait=-1"], "--postgres-wait must be 0…86400 seconds"),
        (["--advertise", "lb.example:0"], "--advertise must be HOST or HOST:PORT"),
        (["--advertise", "lb.example:443:1"], "--advertise must be HOST or HOST:PORT"),
        (["--advertise", "[::1"], "--advertise must be HOST or HOST:PORT"),
    ])
    func outOfRangeOptionsAreRefused(arguments: [String], says: String) async throws {
        let result = try await ClientCommandTests.run(["server", "--port", "0", "--data", "/nonexistent/synccore"] + arguments)
        #expect(result.status != 0 && result.stderr.contains(says), "\(arguments): \(result.stderr)")
    }
}
