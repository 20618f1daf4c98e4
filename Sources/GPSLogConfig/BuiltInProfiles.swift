// SPDX-License-Identifier: MIT

/// The profiles every gpslog has, from Overland's Usage Profiles in Linux terms. They are data: a key whose option a
/// subcommand does not have is skipped for it, so a profile may name options that only some subcommands take.
public enum BuiltInProfiles {
    /// Every fix, as Overland's "High Resolution" (Desired Accuracy: Best, no pause, standard tracking): no interval,
    /// no distance, time or accuracy filter, no automatic pause, no monitoring mode.
    public static let highResolution = Profile(
        name: "high-resolution",
        settings: ConfigSettings(sections: [
            "record": [
                ConfigEntry(key: "interval", value: .string("0s")),
                ConfigEntry(key: "min-distance", value: .unset),
                ConfigEntry(key: "min-time", value: .unset),
                ConfigEntry(key: "max-accuracy", value: .unset),
                ConfigEntry(key: "pause-when-stopped", value: .string("off")),
                ConfigEntry(key: "monitoring", value: .unset),
            ]
        ]), path: nil)

    /// Overland's "Battery Saving": significant-change monitoring, pause after ten minutes still, resume 500 m
    /// away, and fixes up to 100 m off accepted.
    public static let batterySaving = Profile(
        name: "battery-saving",
        settings: ConfigSettings(sections: [
            "record": [
                ConfigEntry(key: "monitoring", value: .string("significant")),
                // GPS Log's filters do not go with a monitoring mode (record refuses both): cleared.
                ConfigEntry(key: "min-distance", value: .unset),
                ConfigEntry(key: "min-time", value: .unset),
                ConfigEntry(key: "pause-when-stopped", value: .string("10m")),
                ConfigEntry(key: "resume-radius", value: .integer(500)),
                ConfigEntry(key: "max-accuracy", value: .integer(100)),
            ]
        ]), path: nil)

    /// By name.
    public static let all: [String: Profile] = [
        highResolution.name: highResolution, batterySaving.name: batterySaving,
    ]
}
