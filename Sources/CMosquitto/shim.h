// SPDX-License-Identifier: MIT
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H
/* Eclipse Mosquitto's client library (Debian's libmosquitto-dev), the client the OwnTracks Recorder uses. Its
   callbacks take a `void *obj` and are not variadic, so Swift bridges them with @convention(c) functions. */
#include <mosquitto.h>
/* MQTT v5 property identifiers (MQTT_PROP_MAXIMUM_PACKET_SIZE) and reason codes. */
#include <mqtt_protocol.h>
#endif
