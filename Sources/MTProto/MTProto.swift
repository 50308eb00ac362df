// MTProto: the sans-I/O protocol cores (crypto, auth-key exchange, encrypted session, transport framings).
// Built by the issue "MTProto 2.0: crypto, auth-key exchange, encrypted sessions and TCP transports".
// Nothing is implemented here yet; this file only anchors the target so the layer graph of ARCHITECTURE.md exists.
