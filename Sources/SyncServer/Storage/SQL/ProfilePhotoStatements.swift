/// Each user's profile photos, newest first (`photos.getUserPhotos`), written once for both backends; the current one
/// is also on the user's row (`UserRecord.photo`).
enum ProfilePhotoSQL {
    enum Insert: SQLText { static let text = "INSERT INTO profile_photos (user_id, photo_id, date) VALUES (?, ?, ?)" }
    enum Delete: SQLText { static let text = "DELETE FROM profile_photos WHERE user_id = ? AND photo_id = ?" }
    /// Newest first (ids grow with time, `MediaFiles.newIdentity`), below `max_id` when one is given (0: from the newest).
    enum Page: SQLText {
        static let text = """
            SELECT photo_id FROM profile_photos WHERE user_id = ? AND (? = 0 OR photo_id < ?)
            ORDER BY photo_id DESC LIMIT ? OFFSET ?
            """
    }
    enum Count: SQLText { static let text = "SELECT COUNT(*) FROM profile_photos WHERE user_id = ?" }
    enum Has: SQLText { static let text = "SELECT COUNT(*) FROM profile_photos WHERE user_id = ? AND photo_id = ?" }
}

public protocol ProfilePhotoStorageReader {
    /// The ids of `user`'s profile photos, newest first.
    func profilePhotos(user: Int64, maxID: Int64, offset: Int, limit: Int) throws -> [Int64]
    func profilePhotoCount(user: Int64) throws -> Int
    func hasProfilePhoto(user: Int64, photo: Int64) throws -> Bool
}

public protocol ProfilePhotoStorageWriter {
    func addProfilePhoto(user: Int64, photo: Int64, date: Int32) throws
    func removeProfilePhoto(user: Int64, photo: Int64) throws
}

extension SQLStatements {
    func profilePhotos(user: Int64, maxID: Int64, offset: Int, limit: Int) throws -> [Int64] {
        try integers(ProfilePhotoSQL.Page.self, user, maxID, maxID, limit, offset)
    }

    func profilePhotoCount(user: Int64) throws -> Int { Int(try integer(ProfilePhotoSQL.Count.self, user)) }

    func hasProfilePhoto(user: Int64, photo: Int64) throws -> Bool { try integer(ProfilePhotoSQL.Has.self, user, photo) > 0 }

    func addProfilePhoto(user: Int64, photo: Int64, date: Int32) throws {
        try execute(ProfilePhotoSQL.Insert.self, user, photo, date)
    }

    func removeProfilePhoto(user: Int64, photo: Int64) throws {
        try execute(ProfilePhotoSQL.Delete.self, user, photo)
    }
}
