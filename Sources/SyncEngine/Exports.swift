// What the `Account` API names, so that `import SyncEngine` alone is enough to use it (the README's quick start
// compiles as written in a package that depends on SyncCore: `Examples/QuickStart`, built in CI): the store's types
// (`PeerID`, `Message`, views), the TL types of events and raw calls (`API`), the server's key (`RSAPublicKey`) and
// addresses (`DataCenterDirectory`, `DataCenterAddress`).
@_exported import MTProto
@_exported import MTProtoNIO
@_exported import Postbox
@_exported import TL
