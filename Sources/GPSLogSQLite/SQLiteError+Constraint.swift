// SPDX-License-Identifier: MIT
import CSQLite3
import Foundation

extension SQLiteError {
    /// The kind of constraint a write broke, as SQLite's extended result code says it.
    public enum ConstraintKind: Sendable, Equatable, CaseIterable {
        case check, unique, primaryKey, notNull, foreignKey, trigger, other

        /// The extended result code of this kind (`other`: plain SQLITE_CONSTRAINT).
        var extendedCode: Int32 {
            switch self {
            case .check: CSQLite3_CONSTRAINT_CHECK
            case .unique: CSQLite3_CONSTRAINT_UNIQUE
            case .primaryKey: CSQLite3_CONSTRAINT_PRIMARYKEY
            case .notNull: CSQLite3_CONSTRAINT_NOTNULL
            case .foreignKey: CSQLite3_CONSTRAINT_FOREIGNKEY
            case .trigger: CSQLite3_CONSTRAINT_TRIGGER
            case .other: SQLITE_CONSTRAINT
            }
        }
    }

    /// The kind of constraint broken, from the extended result code (never from the message); nil for an error
    /// that is not a constraint violation.
    public var constraintKind: ConstraintKind? {
        guard isConstraintViolation else { return nil }
        return ConstraintKind.allCases.first { $0 != .other && $0.extendedCode == extendedCode } ?? .other
    }

    /// What SQLite names of the broken constraint, the part of its message after the last ": " ("CHECK constraint
    /// failed: latitude_in_range"): a CHECK's name (`CONSTRAINT name` in the schema), the `Table.Column` list of a
    /// UNIQUE, PRIMARY KEY or NOT NULL; nil when it names none (a foreign key) or the error is not a constraint's.
    ///
    /// SQLite has no API for the name; this is the one place its message is read, and only its name part.
    public var constraintName: String? {
        guard isConstraintViolation, let colon = message.range(of: ": ", options: .backwards) else { return nil }
        let name = message[colon.upperBound...].trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : name
    }

    /// A constraint failure of `kind` with `message` (tests feed the mapping errors SQLite words differently).
    init(constraint kind: ConstraintKind, message: String) {
        self.init(extendedCode: kind.extendedCode, message: message)
    }
}
