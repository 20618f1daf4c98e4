// SPDX-License-Identifier: MIT
import GPSLogConfig

// The option groups the config files set: each option by its key (its long name), in the order it is declared.
// `ConfigReachTests.everyKeyReachesItsCommand` fails for an option left out here.

extension GlobalOptions: Configurable {
    // `config` and `profile` choose the files and the profile: no file sets them.
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&db, "db")
    }
}

extension CommitOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&commitEvery, "commit-every")
    }
}

extension SamplingOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&interval, "interval")
        try settings.set(&minDistance, "min-distance")
        try settings.set(&minTime, "min-time")
        try settings.set(&maxAccuracy, "max-accuracy")
        try settings.set(&headingFilter, "heading-filter")
        try settings.set(&samePlace, "same-place")
        try settings.set(&maxSpeed, "max-speed")
    }
}

extension SessionOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&name, "name")
        try settings.set(&split, "split")
        try settings.set(&timezone, "timezone")
    }
}

extension RecordGeocodingOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&geocode, "geocode")
        try settings.set(&geocodeRate, "geocode-rate")
        try settings.set(&contact, "contact")
    }
}

extension LiveSendingOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&send, "send")
        try settings.set(&sendInterval, "send-interval")
        try settings.set(&allowRemoteOff, "allow-remote-off")
        try sending.apply(settings)
    }
}

extension RecordSourceOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&source, "source")
        try settings.set(&watchdog, "watchdog")
    }
}

extension SendingOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&token, "token")
        try settings.set(&tokenFile, "token-file")
        try settings.set(&deviceID, "device-id")
        try settings.set(&batchSize, "batch-size")
        try settings.set(&accept2xx, "accept-2xx")
        try settings.set(&format, "format")
        try settings.set(&timeout, "timeout")
        try settings.set(&maxAttempts, "max-attempts")
        try settings.set(&loggingMode, "logging-mode")
        try settings.set(&uniqueID, "unique-id")
        try mqtt.apply(settings)
    }
}

extension MQTTLoginOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&mqttUsername, "mqtt-username")
        try settings.set(&mqttPasswordFile, "mqtt-password-file")
        try settings.set(&caFile, "ca-file")
        try settings.set(&certFile, "cert-file")
        try settings.set(&keyFile, "key-file")
    }
}

extension MQTTPublishOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&qos, "qos")
        try settings.set(&trackerID, "tracker-id")
        try settings.set(&cardName, "card-name")
        try settings.set(&cardFace, "card-face")
        try settings.set(&mqttRate, "mqtt-rate")
        try settings.set(&homeAssistant, "home-assistant")
        try settings.set(&homeAssistantPrefix, "home-assistant-prefix")
        try login.apply(settings)
    }
}

extension MQTTOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&mqtt, "mqtt")
        try settings.set(&topic, "topic")
        try settings.set(&mqttClientID, "mqtt-client-id")
        try login.apply(settings)
    }
}

extension MonitoringOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&monitoring, "monitoring")
        try settings.set(&locatorDisplacement, "locator-displacement")
        try settings.set(&locatorInterval, "locator-interval")
        try settings.set(&locatorRule, "locator-rule")
        try settings.set(&pingInterval, "ping-interval")
    }
}

extension PostgresOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&postgresPasswordFile, "postgres-password-file")
    }
}

extension StayOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&pauseWhenStopped, "pause-when-stopped")
        try settings.set(&resumeRadius, "resume-radius")
        try settings.set(&visits, "visits")
    }
}

extension TrackImportFlags: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&merge, "merge")
        try settings.set(&routes, "routes")
        try settings.set(&splitBy, "split-by")
    }
}

extension TripOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&tripInterval, "trip-interval")
        try settings.set(&tripMinDistance, "trip-min-distance")
        try settings.set(&tripMinTime, "trip-min-time")
        try settings.set(&tripMaxAccuracy, "trip-max-accuracy")
        try settings.set(&tripBatchSize, "trip-batch-size")
        try settings.set(&tripLoggingMode, "trip-logging-mode")
    }
}

extension ViewOptions: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try settings.set(&noView, "no-view")
        try settings.set(&tiles, "tiles")
        try settings.set(&tilesAttribution, "tiles-attribution")
        try settings.set(&viewTokenFile, "view-token-file")
    }
}
