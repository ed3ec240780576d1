"""Files on the wire: the upload's multipart body, the record the SDK reads (with the older
camelCase keys beside the snake_case ones), and lists of them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from api.wire.common import Paginated
from pipelines.core.records import FileRecord, rfc3339


class FileCreated(BaseModel):
    file_id: str
    created_at: str


class FileMetadata(BaseModel):
    file_id: str
    file_name: str | None
    mime_type: str
    file_size: int
    checksum_sha256: str
    created_at: str
    labels: dict[str, Any]
    # the SDK's (older) camelCase model of the same record
    id: str
    name: str
    fileSize: int  # noqa: N815 - wire name
    mimeType: str  # noqa: N815
    createdAt: str  # noqa: N815
    updatedAt: str  # noqa: N815


class FileList(Paginated):
    items: list[FileMetadata]


def file_metadata(rec: FileRecord) -> dict[str, Any]:
    created = rfc3339(rec.created_us)
    return FileMetadata(
        file_id=rec.id, file_name=rec.file_name, mime_type=rec.mime_type, file_size=rec.file_size,
        checksum_sha256=rec.checksum_sha256, created_at=created, labels=rec.labels,
        id=rec.id, name=rec.file_name or "", fileSize=rec.file_size, mimeType=rec.mime_type,
        createdAt=created, updatedAt=created,
    ).model_dump()


UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {"multipart/form-data": {"schema": {
            "type": "object",
            "properties": {
                "file_bytes": {"type": "string", "format": "binary", "description": "The file ('file' also works)."},
                "labels": {"type": "string", "description": "key=value, or a JSON object; may repeat."},
            },
            "required": ["file_bytes"],
        }}},
    },
}
