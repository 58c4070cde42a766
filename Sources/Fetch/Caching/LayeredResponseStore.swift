import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A memory store in front of a disk store: lookups try memory first, and a response found only on disk is kept in
/// memory from then on; writes and removals go to both.
///
/// Values parsed from a response live only in memory, with the memory store's copy (``StoredResponse``), so a fresh
/// hit from memory skips parsing, and a hit from disk parses once and is then a memory hit. A response another
/// process writes to the directory is seen when this process has none for that key in memory.
final class LayeredResponseStore: ResponseStoring {
    let memory: ResponseStore
    let disk: DiskResponseStore

    init(memory: ResponseStore, disk: DiskResponseStore) {
        self.memory = memory
        self.disk = disk
    }

    /// The bytes on disk, which holds every stored response; memory holds the recently used ones again.
    var bytes: Int {
        disk.bytes
    }

    var count: Int {
        disk.count
    }

    func response(for key: String, matching request: URLRequest) -> StoredResponse? {
        if let response = memory.response(for: key, matching: request) {
            return response
        }
        guard let response = disk.response(for: key, matching: request) else {
            return nil
        }
        memory.insert(response)
        return response
    }

    @discardableResult
    func insert(_ response: StoredResponse) -> Bool {
        let inMemory = memory.insert(response)
        let onDisk = disk.insert(response)
        return inMemory || onDisk
    }

    func remove(_ key: String) {
        memory.remove(key)
        disk.remove(key)
    }

    func removeAll() {
        memory.removeAll()
        disk.removeAll()
    }

    func removeAll(identifiedBy tag: String) {
        memory.removeAll(identifiedBy: tag)
        disk.removeAll(identifiedBy: tag)
    }
}
