// swift-tools-version:6.1
// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the gpslog authors

import PackageDescription

/// Module layout follows the data flow: source -> sampler -> store -> (geocoder, formats, uploader, receiver, view) -> CLI.
/// GPSLogFormats (every file format: the writers, the one GPX reader, the Overland and OwnTracks payloads) sits below
/// everything that writes or reads files, with only the model and the XML wrapper under it; GPSLogImportExport (the
/// importers, convert, the export plumbing) sits above the store. GPSLogSystem (a blocking queue, one reading of HTTP
/// answers) sits at the bottom beside the model: it depends on nothing.
/// Each C library is wrapped once: a `C*` system-library target (module map + shim.h) and one Swift module over it.
let package = Package(
    name: "gpslog",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "gpslog", targets: ["gpslog"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),  // LogEvent
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.25.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),  // the config file
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),  // KMZ (zipped KML) import
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),  // sync and serve --store postgres://
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),  // PostgreSQL's sslmode
        // Already in the graph through postgres-nio: SHA-256 of serve's device tokens.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
    ],
    targets: [
        // MARK: - C libraries, from Debian
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),

        // MARK: - One Swift module over each C library
        .target(name: "GPSLogSQLite", dependencies: ["CSQLite3"]),
        .target(name: "GPSLogXML", dependencies: ["CLibXML2", "GPSLogSystem"]),
        .target(name: "GPSLogGEOS", dependencies: ["CGEOS"]),
        .target(name: "GPSLogMQTT", dependencies: ["CMosquitto"]),
        .target(name: "GPSLogArgon2", dependencies: ["CArgon2"]),
        .target(name: "GPSLogPNG", dependencies: ["CPNG"]),

        // MARK: - Domain
        // Threads and HTTP plumbing every layer shares (a blocking queue, one reading of HTTP status codes).
        .target(name: "GPSLogSystem"),
        .target(name: "GPSLogModel"),
        .target(
            name: "GPSLogFormats",
            dependencies: [
                "GPSLogModel", "GPSLogSystem", "GPSLogXML", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .target(
            name: "GPSLogSources",
            dependencies: [
                "GPSLogModel", "GPSLogSystem", "GPSLogFormats",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "GPSLogSampling", dependencies: ["GPSLogModel"]),
        // The spine: a fix's way through the sampling stages to a `SessionSink` (the Store, a dry run, a convert's
        // spool), and the file importers' way to the same sink; region outlines and track simplification with GEOS.
        .target(
            name: "GPSLogPipeline",
            dependencies: ["GPSLogModel", "GPSLogSampling", "GPSLogFormats", "GPSLogGEOS"]
        ),
        // The config file and profiles: layers of option values, each with where it came from. No ArgumentParser:
        // the command line hands it the options each subcommand has.
        .target(name: "GPSLogConfig", dependencies: ["GPSLogModel", .product(name: "TOMLKit", package: "TOMLKit")]),
        .target(
            name: "GPSLogStore",
            dependencies: [
                "GPSLogModel", "GPSLogSystem", "GPSLogSQLite",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["embed.list"],
            plugins: ["EmbedResourcesPlugin"]
        ),
        .target(
            name: "GPSLogBundledRecording", dependencies: ["GPSLogModel"],
            exclude: ["embed.list", "SOURCE.md", "gpsd-COPYING.txt", "bundg_zeus_9.log"],
            plugins: ["EmbedResourcesPlugin"]),
        .target(
            name: "GPSLogImportExport",
            dependencies: [
                "GPSLogModel", "GPSLogSystem", "GPSLogFormats", "GPSLogSources", "GPSLogSampling", "GPSLogPipeline",
                "GPSLogStore", "GPSLogXML",
            ]
        ),
        .target(
            name: "GPSLogGeocoding",
            dependencies: [
                "GPSLogModel", "GPSLogStore", "GPSLogGEOS", "GPSLogSystem",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            exclude: ["embed.list", "regions-demo.geojson", "regions-demo.SOURCE.md"],
            plugins: ["EmbedResourcesPlugin"]
        ),
        .target(
            name: "GPSLogUpload",
            dependencies: [
                "GPSLogModel", "GPSLogStore", "GPSLogFormats", "GPSLogSystem", "GPSLogMQTT",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "GPSLogReceiver",
            dependencies: [
                "GPSLogModel", "GPSLogStore", "GPSLogFormats", "GPSLogSystem", "GPSLogMQTT",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // PostgreSQL with PostGIS (`sync`, `serve --store postgres://`): one connection, the schema in
        // Schema/postgres/, the receiver's writes; beside the receiver, reading the Store through its public API.
        .target(
            name: "GPSLogPostgres",
            dependencies: [
                "GPSLogModel", "GPSLogStore", "GPSLogSystem",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["embed.list"],
            plugins: ["EmbedResourcesPlugin"]
        ),
        // The web view `serve` shows (sessions, a session's map and charts, a JSON API): beside the receiver,
        // composed with it by the command line.
        .target(
            name: "GPSLogView",
            dependencies: [
                "GPSLogModel", "GPSLogStore", "GPSLogFormats", "GPSLogPipeline", "GPSLogSystem", "GPSLogArgon2",
                "GPSLogPNG", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            exclude: ["embed.list", "Assets"],
            plugins: ["EmbedResourcesPlugin"]
        ),
        .target(
            name: "GPSLogRecording",
            dependencies: [
                "GPSLogModel", "GPSLogSystem", "GPSLogSources", "GPSLogSampling", "GPSLogPipeline", "GPSLogStore",
                "GPSLogBundledRecording", "GPSLogGeocoding", "GPSLogUpload",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "GPSLogCommands",
            dependencies: [
                "GPSLogModel", "GPSLogSources", "GPSLogSampling", "GPSLogPipeline", "GPSLogStore",
                "GPSLogBundledRecording", "GPSLogFormats", "GPSLogImportExport",
                "GPSLogRecording", "GPSLogGeocoding", "GPSLogUpload", "GPSLogReceiver", "GPSLogConfig", "GPSLogView",
                "GPSLogPostgres", "GPSLogArgon2",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),  // serve composes the receiver and the view
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "gpslog", dependencies: ["GPSLogCommands"]),

        // MARK: - Build tooling: embeds Schema/*.sql (and other data files) into Swift at build time,
        // so the installed binary needs no resource bundle beside it.
        .executableTarget(name: "EmbedResourcesTool"),
        .plugin(
            name: "EmbedResourcesPlugin",
            capability: .buildTool(),
            dependencies: ["EmbedResourcesTool"],
            path: "Sources/EmbedResourcesPlugin"
        ),

        // MARK: - Tests
        .target(
            name: "GPSLogTestSupport",
            dependencies: [
                "GPSLogModel", "GPSLogStore", "GPSLogSQLite",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/GPSLogTestSupport"
        ),
        // The parsers that read bytes from outside, one function per fuzz target (see `make fuzz`); a library that
        // is always built, so the replay tests below run every seed and regression file in a plain `swift test`.
        .target(
            name: "GPSLogFuzzTargets",
            dependencies: [
                "GPSLogModel", "GPSLogSources", "GPSLogFormats", "GPSLogImportExport", "GPSLogPipeline", "GPSLogStore",
                "GPSLogXML", "GPSLogRecording",
            ],
            path: "Tests/GPSLogFuzzTargets"
        ),
        .testTarget(name: "GPSLogFuzzTargetsTests", dependencies: ["GPSLogFuzzTargets", "GPSLogTestSupport"]),
        .testTarget(name: "GPSLogSystemTests", dependencies: ["GPSLogSystem"]),
        .testTarget(name: "GPSLogSQLiteTests", dependencies: ["GPSLogSQLite"]),
        .testTarget(name: "GPSLogXMLTests", dependencies: ["GPSLogXML", "GPSLogTestSupport"]),
        .testTarget(name: "GPSLogGEOSTests", dependencies: ["GPSLogGEOS"]),
        .testTarget(name: "GPSLogMQTTTests", dependencies: ["GPSLogMQTT", "GPSLogTestSupport"]),
        .testTarget(name: "GPSLogModelTests", dependencies: ["GPSLogModel"]),
        .testTarget(name: "GPSLogSamplingTests", dependencies: ["GPSLogSampling", "GPSLogModel"]),
        .testTarget(
            name: "GPSLogPipelineTests",
            dependencies: [
                "GPSLogPipeline", "GPSLogSampling", "GPSLogModel", "GPSLogStore", "GPSLogSources",
                "GPSLogBundledRecording", "GPSLogImportExport", "GPSLogTestSupport",
            ]
        ),
        .testTarget(name: "GPSLogConfigTests", dependencies: ["GPSLogConfig", "GPSLogModel"]),
        .testTarget(name: "GPSLogSourcesTests", dependencies: ["GPSLogSources", "GPSLogModel", "GPSLogTestSupport"]),
        .testTarget(
            name: "GPSLogStoreTests", dependencies: ["GPSLogStore", "GPSLogModel", "GPSLogSQLite", "GPSLogTestSupport"]),
        .testTarget(name: "GPSLogFormatsTests", dependencies: ["GPSLogFormats", "GPSLogModel", "GPSLogTestSupport"]),
        .testTarget(
            name: "GPSLogImportExportTests",
            dependencies: [
                "GPSLogImportExport", "GPSLogFormats", "GPSLogModel", "GPSLogStore", "GPSLogBundledRecording",
                "GPSLogXML",
                "GPSLogSampling", "GPSLogPipeline", "GPSLogTestSupport",
            ]
        ),
        .testTarget(
            name: "GPSLogGeocodingTests",
            dependencies: [
                "GPSLogGeocoding", "GPSLogTestSupport", "GPSLogImportExport", "GPSLogRecording",
                "GPSLogBundledRecording", "GPSLogSQLite", "GPSLogStore",
                "GPSLogModel",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "GPSLogUploadTests",
            dependencies: [
                "GPSLogUpload", "GPSLogTestSupport", "GPSLogStore", "GPSLogModel", "GPSLogRecording",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "GPSLogRecordingTests",
            dependencies: [
                "GPSLogRecording", "GPSLogSources", "GPSLogSampling", "GPSLogBundledRecording", "GPSLogStore",
                "GPSLogModel", "GPSLogTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "GPSLogPostgresTests",
            dependencies: [
                "GPSLogPostgres", "GPSLogTestSupport", "GPSLogStore", "GPSLogModel",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "GPSLogCLITests",
            dependencies: [
                "GPSLogTestSupport", "GPSLogStore", "GPSLogRecording", "GPSLogSQLite", "GPSLogModel", "GPSLogCommands",
                "GPSLogConfig", "GPSLogPNG", "GPSLogView",
            ]),
    ]
)

// MARK: - Fuzzing (`make fuzz`; only with GPSLOG_FUZZ=1, in its own scratch folder .build-fuzz)
//
// `swift build --sanitize fuzzer` would instrument every target of every package and link libFuzzer, whose `main`
// runs the fuzzer, into every executable, host tools included (the EmbedResourcesTool plugin's). Instead our library
// targets are compiled with libFuzzer's coverage and AddressSanitizer (`-sanitize=fuzzer,address` instruments when
// compiling and links nothing), and only `gpslog-fuzz` is linked with libFuzzer and ASan. SwiftPM links an executable
// with its module's entry point as `main`, hiding libFuzzer's, so `gpslog-fuzz` has a `main` of its own that calls
// `LLVMFuzzerRunDriver` (declared by `CLibFuzzer`). The packages we use stay uninstrumented: their coverage would only
// steer the fuzzer into NIO and BoringSSL.
if Context.environment["GPSLOG_FUZZ"] == "1" {
    let instrument: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
    for target in package.targets where target.type == .regular {
        target.swiftSettings = (target.swiftSettings ?? []) + instrument
    }
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "Tests/CLibFuzzer"),
        .executableTarget(
            name: "gpslog-fuzz",
            dependencies: ["GPSLogFuzzTargets", "CLibFuzzer"],
            path: "Tests/GPSLogFuzz",
            swiftSettings: instrument,
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        ),
    ]
}
