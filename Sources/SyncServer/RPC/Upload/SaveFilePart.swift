import MTProto
import TL

/// `upload.*` methods (core.telegram.org/api/files). They work on any data center: a file lives on the one it was
/// uploaded to, and a client downloads it there with an exported authorization.
enum UploadRPC {
    /// `upload.saveFilePart`: a part of a file of at most 10 MiB, whose part count comes with the call that uses it.
    enum SaveFilePart: RPCMethod {
        typealias Function = API.functions.upload.SaveFilePart

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Bool {
            let part = UploadRules.Part(number: call.filePart, size: Int32(clamping: call.bytes.count), totalParts: nil)
            try await Uploads.save(part, fileID: call.fileId, bytes: call.bytes, owner: try context.user(), server: server)
            return true
        }
    }

    /// `upload.saveBigFilePart`: a part of a file of more than 10 MiB, with the file's part count.
    enum SaveBigFilePart: RPCMethod {
        typealias Function = API.functions.upload.SaveBigFilePart

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Bool {
            let part = UploadRules.Part(number: call.filePart, size: Int32(clamping: call.bytes.count), totalParts: call.fileTotalParts)
            try await Uploads.save(part, fileID: call.fileId, bytes: call.bytes, owner: try context.user(), server: server)
            return true
        }
    }
}
