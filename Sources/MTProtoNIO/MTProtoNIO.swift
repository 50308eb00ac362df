// MTProtoNIO: small SwiftNIO handlers that drive the MTProto cores, and the client connection manager.
// Built by the MTProto and client-network issues. Nothing is implemented here yet.
