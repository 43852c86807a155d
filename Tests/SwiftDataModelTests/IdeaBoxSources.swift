/// Seed 001's IdeaBox models: as the seed writes them (its code blocks, verbatim), and fixed.
enum IdeaBoxSources {
    /// Seed 001, 1. Idea.
    static let seedIdea = #"""
        @Model
        final class Idea: Identifiable {
            @Attribute(.unique) var id: UUID                    // 全球唯一識別符
            var title: String                                    // 想法標題（必填）
            var description: String                              // 想法描述（可選）
            var isCompleted: Bool                                // 完成狀態

            // 時間戳（毫秒精度）
            var createdAt: Date                                  // 建立時間
            var updatedAt: Date                                  // 最後更新時間

            // 同步元數據
            var deviceId: String                                 // 來源裝置識別符
            var syncState: SyncState?                           // 關聯的同步狀態

            // 審計日誌
            var version: Int                                     // 本地版本號
            var lastSyncedAt: Date?                             // 最後成功同步時間

            // 初始化器
            init(
                id: UUID = UUID(),
                title: String,
                description: String = "",
                isCompleted: Bool = false,
                createdAt: Date = Date(),
                updatedAt: Date = Date(),
                deviceId: String,
                version: Int = 0
            ) {
                self.id = id
                self.title = title
                self.description = description
                self.isCompleted = isCompleted
                self.createdAt = createdAt
                self.updatedAt = updatedAt
                self.deviceId = deviceId
                self.version = version
            }
        }
        """#

    /// Seed 001, 2. SyncState.
    static let seedSyncState = #"""
        @Model
        final class SyncState {
            @Attribute(.unique) var ideaId: UUID               // 關聯的 Idea 的 UUID

            // 同步版本
            var localVersion: Int                              // 本地版本號
            var remoteVersion: Int?                            // 遠端版本號
            var cloudKitRecordName: String?                    // CloudKit 記錄名稱

            // 時間戳
            var lastSyncedAt: Date?                            // 最後成功同步時間
            var lastConflictAt: Date?                          // 最後衝突時間
            var lastModifiedAt: Date                           // 最後修改時間（本地）

            // 狀態標誌
            var isPendingSync: Bool                            // 等待同步
            var isObsolete: Bool                               // 已過時（30 天未同步）
            var conflictResolutionStrategy: String             // 衝突解決策略："lastWrite"

            // 初始化器
            init(
                ideaId: UUID,
                localVersion: Int = 0,
                remoteVersion: Int? = nil,
                lastModifiedAt: Date = Date(),
                isPendingSync: Bool = true,
                conflictResolutionStrategy: String = "lastWrite"
            ) {
                self.ideaId = ideaId
                self.localVersion = localVersion
                self.remoteVersion = remoteVersion
                self.lastModifiedAt = lastModifiedAt
                self.isPendingSync = isPendingSync
                self.isObsolete = false
                self.conflictResolutionStrategy = conflictResolutionStrategy
            }

            // 輔助方法
            func markSynced(remoteVersion: Int, recordName: String) {
                self.remoteVersion = remoteVersion
                self.cloudKitRecordName = recordName
                self.lastSyncedAt = Date()
                self.isPendingSync = false
            }

            func markConflict() {
                self.lastConflictAt = Date()
            }

            func markObsolete() {
                let thirtyDaysAgo = Calendar.current.date(byAdding: .day, value: -30, to: Date())!
                if let lastSynced = lastSyncedAt, lastSynced < thirtyDaysAgo {
                    self.isObsolete = true
                }
            }
        }
        """#

    static let fixedIdea = #"""
        import Foundation
        import SwiftData

        /// IdeaBox's Idea as CloudKit takes it: defaults in the declarations, no unique id (CloudKit
        /// keeps one record per name), `details` for `description` (NSObject's), SyncState's end named.
        @Model
        final class Idea {
            var id: UUID = UUID()
            var title: String = ""
            var details: String = ""
            var isCompleted: Bool = false
            var createdAt: Date = Date.now
            var updatedAt: Date = Date.now
            var deviceId: String = ""
            @Relationship(deleteRule: .cascade, inverse: \SyncState.idea) var syncState: SyncState?
            var version: Int = 0
            var lastSyncedAt: Date?

            init(title: String, deviceId: String) {
                self.title = title
                self.deviceId = deviceId
            }
        }
        """#

    static let fixedSyncState = #"""
        import Foundation
        import SwiftData

        @Model
        final class SyncState {
            var ideaId: UUID = UUID()
            var idea: Idea?
            var localVersion: Int = 0
            var remoteVersion: Int?
            var cloudKitRecordName: String?
            var lastSyncedAt: Date?
            var lastConflictAt: Date?
            var lastModifiedAt: Date = Date.now
            var isPendingSync: Bool = true
            var isObsolete: Bool = false
            var conflictResolutionStrategy: String = "lastWrite"

            init(ideaId: UUID) { self.ideaId = ideaId }
        }
        """#
}
