import Foundation
import SyncEngine

// The server's public key, as `synccore server --export-public-key server.pem` wrote it.
let serverKeyPEM = try String(contentsOfFile: "server.pem", encoding: .utf8)
let account = try await Account.open(Account.Configuration(
    directory: "./account",
    addresses: DataCenterDirectory(seed: [2: [DataCenterAddress(host: "127.0.0.1", port: 4430)]]),
    publicKeys: [try RSAPublicKey(pkcs1PEM: serverKeyPEM)]))
if await !account.isLoggedIn {
    let hash = try await account.requestCode(phone: "+15550001")
    try await account.signIn(phone: "+15550001", code: "12345", codeHash: hash)
}
let bob = try await account.resolve(username: "bob")
try await account.send("hello", to: bob)                  // shown at once, sent by the outbox
for try await update in account.history(bob, count: 50) { // a live window; holes fill while it is open
    print(update.snapshot.messages.map(\.text))
}
