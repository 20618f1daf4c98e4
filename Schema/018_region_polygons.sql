-- Migration 18: polygon regions (`gpslog region import` of GeoJSON). Latitude and Longitude are then a point inside
-- the polygon and Radius the distance from there to its farthest vertex, so what reads only the circle still holds
-- the whole region.

-- A GeoJSON (RFC 7946) Polygon or MultiPolygon geometry, WGS 84; NULL: a circular region.
ALTER TABLE Regions ADD COLUMN Outline TEXT
    CONSTRAINT region_outline_is_polygon CHECK (
        Outline IS NULL
        OR (json_valid(Outline) AND json_extract(Outline, '$.type') IN ('Polygon', 'MultiPolygon')));
