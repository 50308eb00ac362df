import Foundation
import MTProto
import SyncHarness

/// `synccore bench crypto`: AES-256-IGE (encrypt and decrypt) beside OpenSSL's AES-256-CBC encryption on the same
/// machine in the same run — both are serial chains of AES blocks, so CBC is the fair ceiling — plus AES-256-CTR
/// and complete server-side auth-key exchanges per second (RSA decryption, DH, hashing).
struct CryptoBenchmark {
    static let bufferSize = 64 * 1024
    static let targetIGEToCBC = 0.70

    var secondsPerFigure: Double

    var implementationNote: String {
        AES256IGE.usesHardware ? "IGE on AES-NI" : "IGE on OpenSSL's portable AES (no AES-NI on this CPU)"
    }

    func run() throws -> [BenchFigure] {
        var rng = SplitMix64(seed: 3)
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let iv = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let data = (0..<Self.bufferSize).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let timer = BenchTimer(seconds: secondsPerFigure)
        let megabytes = Double(Self.bufferSize) / 1_000_000

        let encrypted = try AES256IGE.encrypt(data, key: key, iv: iv)
        let igeEncrypt = try timer.runsPerSecond { try AES256IGE.encrypt(data, key: key, iv: iv).count } * megabytes
        let igeDecrypt = try timer.runsPerSecond { try AES256IGE.decrypt(encrypted, key: key, iv: iv).count } * megabytes
        let cbc = try timer.runsPerSecond {
            try AES256CBC.encrypt(data, key: key, iv: Array(iv[0..<16])).count
        } * megabytes
        let ctrStream = try AES256CTR(key: key, iv: Array(iv[0..<16]))
        var ctrBuffer = data
        let ctr = timer.runsPerSecond {
            ctrStream.apply(&ctrBuffer)
            return ctrBuffer.count
        } * megabytes
        let exchanges = try keyExchangesPerSecond()
        let slower = min(igeEncrypt, igeDecrypt)
        return [
            BenchFigure(bench: "crypto.ige_encrypt", value: igeEncrypt, unit: "MB/s", target: nil),
            BenchFigure(bench: "crypto.ige_decrypt", value: igeDecrypt, unit: "MB/s", target: nil),
            BenchFigure(bench: "crypto.cbc_openssl", value: cbc, unit: "MB/s", target: nil),
            BenchFigure(bench: "crypto.ige_vs_cbc", value: slower / cbc, unit: "ratio", target: Self.targetIGEToCBC,
                        note: "slower IGE direction / OpenSSL CBC encrypt"),
            BenchFigure(bench: "crypto.ctr", value: ctr, unit: "MB/s", target: nil),
            BenchFigure(bench: "crypto.key_exchanges", value: exchanges, unit: "per s", target: nil,
                        note: "server side only; one core"),
        ]
    }

    /// Complete exchanges against an in-process client; only the server's work is timed.
    private func keyExchangesPerSecond() throws -> Double {
        let rsa = try RSAPrivateKey.generate(bits: 2048)
        let clock = ContinuousClock()
        var serverTime = Duration.zero
        var completed = 0
        let start = clock.now
        var seed: UInt64 = 1
        while clock.now - start < .milliseconds(Int(secondsPerFigure * 1000)) || completed < 3 {
            var client = ClientAuthKeyExchange(publicKeys: [rsa.publicKey], dc: 2, rng: SplitMix64(seed: seed))
            var server = ServerAuthKeyExchange(rsaKey: rsa, rng: SplitMix64(seed: seed &+ 77))
            seed &+= 1
            var message = client.start()
            exchange: while true {
                let before = clock.now
                let step = try server.receive(message, now: 1_700_000_000)
                serverTime += clock.now - before
                switch step {
                case let .reply(reply):
                    guard case let .send(next) = try client.receive(reply, now: 1_700_000_000) else { break exchange }
                    message = next
                case .completed:
                    completed += 1
                    break exchange
                }
            }
        }
        return Double(completed) / serverTime.seconds
    }
}
