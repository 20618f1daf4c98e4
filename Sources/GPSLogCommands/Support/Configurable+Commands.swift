// SPDX-License-Identifier: MIT
import GPSLogConfig

// The configurable subcommands (`GPSLog.configurableCommands`): each option by its key (its long name), and each
// option group. Positional arguments are not settings. `ConfigReachTests.everyKeyReachesItsCommand` fails for an
// option left out here.

/// A subcommand whose only settings are the global options'.
protocol GloballyConfigurable: Configurable {
    var global: GlobalOptions { get set }
}

extension GloballyConfigurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
    }
}

extension GPSLog.Merge: GloballyConfigurable {}
extension GPSLog.Monitoring: GloballyConfigurable {}
extension GPSLog.Rename: GloballyConfigurable {}
extension GPSLog.Stop: GloballyConfigurable {}
extension GPSLog.Trip: GloballyConfigurable {}
extension GPSLog.TripStart: GloballyConfigurable {}
extension GPSLog.TripStop: GloballyConfigurable {}
// The subcommands of the groups: the global options only (see `OptionCatalog.init(toolInfo:)`).
extension GPSLog.DeviceAdd: GloballyConfigurable {}
extension GPSLog.DeviceList: GloballyConfigurable {}
extension GPSLog.DeviceRevoke: GloballyConfigurable {}
extension GPSLog.RegionAdd: GloballyConfigurable {}
extension GPSLog.RegionExport: GloballyConfigurable {}
extension GPSLog.RegionImport: GloballyConfigurable {}
extension GPSLog.RegionList: GloballyConfigurable {}
extension GPSLog.RegionRemove: GloballyConfigurable {}
extension GPSLog.ShareAdd: GloballyConfigurable {}
extension GPSLog.ShareList: GloballyConfigurable {}
extension GPSLog.ShareRevoke: GloballyConfigurable {}
extension GPSLog.UserAdd: GloballyConfigurable {}
extension GPSLog.UserList: GloballyConfigurable {}
extension GPSLog.UserPassword: GloballyConfigurable {}
extension GPSLog.UserRemove: GloballyConfigurable {}
extension GPSLog.VisitDelete: GloballyConfigurable {}
extension GPSLog.VisitRename: GloballyConfigurable {}

/// A subcommand whose settings are the global options' and `--json`.
protocol ListingConfigurable: Configurable {
    var global: GlobalOptions { get set }
    var json: Bool { get set }
}

extension ListingConfigurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&json, "json")
    }
}

extension GPSLog.Events: ListingConfigurable {}
extension GPSLog.Last: ListingConfigurable {}
extension GPSLog.SendNow: ListingConfigurable {}
extension GPSLog.Sessions: ListingConfigurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&json, "json")
        try settings.set(&oldestFirst, "oldest-first")
    }
}
extension GPSLog.Show: ListingConfigurable {}
extension GPSLog.Status: ListingConfigurable {}
extension GPSLog.Visits: ListingConfigurable {}

extension GPSLog.Check: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&vacuum, "vacuum")
    }
}

extension GPSLog.Convert: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&inputFormat, "input-format")
        try settings.set(&deprecatedFrom, "from")
        try settings.set(&outputFormatName, "output-format")
        try settings.set(&deprecatedTo, "to")
        try settings.set(&simplify, "simplify")
        try tracks.apply(settings)
        try settings.set(&date, "date")
        try settings.set(&timezone, "timezone")
    }
}

extension GPSLog.Delete: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&from, "from")
        try settings.set(&to, "to")
        try settings.set(&inside, "inside")
        try settings.set(&insideRegion, "inside-region")
        try settings.set(&outliers, "outliers")
        try settings.set(&maxSpeed, "max-speed")
        try settings.set(&maxAccuracy, "max-accuracy")
        try settings.set(&dryRun, "dry-run")
        try settings.set(&yes, "yes")
    }
}

extension GPSLog.Devices: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&waypoints, "waypoints")
        try settings.set(&json, "json")
    }
}

extension GPSLog.Export: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&format, "format")
        try settings.set(&output, "output")
        try settings.set(&from, "from")
        try settings.set(&to, "to")
        try settings.set(&simplify, "simplify")
        try settings.set(&batchSize, "batch-size")
        try settings.set(&deviceID, "device-id")
    }
}

extension GPSLog.Geocode: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&all, "all")
        try settings.set(&provider, "provider")
        try settings.set(&rate, "rate")
        try settings.set(&contact, "contact")
        try settings.set(&language, "language")
        try settings.set(&precision, "precision")
        try settings.set(&reset, "reset")
        try settings.set(&json, "json")
    }
}

extension GPSLog.Import: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&name, "name")
        try settings.set(&format, "format")
        try settings.set(&sample, "sample")
        try tracks.apply(settings)
        try settings.set(&dryRun, "dry-run")
        try settings.set(&date, "date")
        try settings.set(&timezone, "timezone")
        try settings.set(&mode, "mode")
        try settings.set(&postgres, "postgres")
        try postgresLogin.apply(settings)
    }
}

extension GPSLog.Mark: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&session, "session")
        try settings.set(&lat, "lat")
        try settings.set(&lon, "lon")
        try settings.set(&time, "time")
        try settings.set(&poi, "poi")
        try settings.set(&json, "json")
    }
}

extension GPSLog.Plot: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&output, "output")
        try settings.set(&panels, "panels")
        try settings.set(&width, "width")
        try settings.set(&from, "from")
        try settings.set(&to, "to")
        try settings.set(&mode, "mode")
        try settings.set(&all, "all")
    }
}

extension GPSLog.Stats: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&year, "year")
        try settings.set(&by, "by")
        try settings.set(&json, "json")
    }
}

extension GPSLog.Prune: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&olderThan, "older-than")
        try settings.set(&dryRun, "dry-run")
        try settings.set(&yes, "yes")
    }
}

extension GPSLog.Record: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try sessions.apply(settings)
        try sourceOptions.apply(settings)
        try sampling.apply(settings)
        try monitoring.apply(settings)
        try stays.apply(settings)
        try trips.apply(settings)
        try settings.set(&mode, "mode")
        try geocoding.apply(settings)
        try sending.apply(settings)
        try commits.apply(settings)
        try settings.set(&tag, "tag")
        try settings.set(&verbose, "verbose")
    }
}

extension GPSLog.Serve: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&listen, "listen")
        try settings.set(&token, "token")
        try settings.set(&tokenFile, "token-file")
        try settings.set(&store, "store")
        try postgres.apply(settings)
        try mqtt.apply(settings)
        try view.apply(settings)
        try settings.set(&verbose, "verbose")
    }
}

extension GPSLog.Split: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&at, "at")
        try settings.set(&name, "name")
    }
}

extension GPSLog.Sync: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try postgres.apply(settings)
        try settings.set(&origin, "origin")
        try settings.set(&batchSize, "batch-size")
        try settings.set(&dryRun, "dry-run")
        try settings.set(&json, "json")
    }
}

extension GPSLog.Tag: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&clear, "clear")
    }
}

extension GPSLog.Upload: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&url, "url")
        try sending.apply(settings)
        try settings.set(&json, "json")
    }
}
