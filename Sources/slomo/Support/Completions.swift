import ArgumentParser
import SlomoCore
import SlomoKit

/// Shell completion of option values from the types that declare them: a job option's closed list
/// (`JobOption.values`), or any `CaseIterable` enum of raw strings. The values are still read and
/// refused by slomo's own checks, so a bad one gets slomo's one-line message, not the parser's.
extension CompletionKind {
    static func values(of option: JobOption) -> CompletionKind? { option.values.map { .list($0) } }

    static func values<T: CaseIterable & RawRepresentable>(of _: T.Type) -> CompletionKind where T.RawValue == String {
        .list(T.allCases.map(\.rawValue))
    }
}
