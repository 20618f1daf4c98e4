// SPDX-License-Identifier: MIT
import Foundation
import PackagePlugin

/// Embeds data files into a target as Swift string literals at build time.
///
/// A target opts in with an `embed.list` file in its folder: one package-relative path per line, where the last
/// component may be a `*.ext` pattern (`Schema/*.sql`). The files stay the single source of truth and the built
/// binary needs no resource bundle beside it (SwiftPM's `Bundle.module` aborts when a bundle is missing after
/// `gpslog` is copied elsewhere).
@main
struct EmbedResourcesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let list = target.directoryURL.appending(path: "embed.list")
        guard let text = try? String(contentsOf: list, encoding: .utf8) else { return [] }
        let root = context.package.directoryURL
        var inputs: [URL] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let url = root.appending(path: line)
            let last = url.lastPathComponent
            if last.hasPrefix("*") {
                let folder = url.deletingLastPathComponent()
                let suffix = String(last.dropFirst())
                let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                    .filter { $0.hasSuffix(suffix) }.sorted()
                inputs += names.map { folder.appending(path: $0) }
            } else {
                inputs.append(url)
            }
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedResources.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) file(s) into \(target.name)",
                executable: try context.tool(named: "EmbedResourcesTool").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs + [list],
                outputFiles: [output])
        ]
    }
}
