"""The course's step of nbgrader's own autograde (formgrader's Autograde button, `nbgrader autograde`) that
puts each test cell back as the instructor wrote it, saying so only when a learner changed one.

nbgrader records a test cell in the gradebook with its hidden tests and with the checksum of that whole
source, then releases it without them (its generate_assignment computes the checksum again after
clearing them). Its autograde (`OverwriteCells`) compares a submitted cell with the recorded checksum,
so every test cell with hidden tests differs, even in a notebook nobody edited: it restores the cell and
logs "Attribute 'checksum' for cell … has changed!" for each one, which buries the warning for a cell
a learner really changed. `RestoreTestCells` compares a submitted locked cell with the cell as it was
released (the recorded source less its hidden region, cleared as nbgrader clears it): one as released
gets the instructor's source back quietly; any other goes through nbgrader's own check, warning and
all. nbgrader_config.py puts it in `c.Autograde.sanitize_preprocessors` in place of `OverwriteCells`.
"""

from __future__ import annotations

import copy

from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import ClearHiddenTests, OverwriteCells


class RestoreTestCells(OverwriteCells):
    """nbgrader's `OverwriteCells`, for which a locked cell exactly as released is no change."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id is not None and utils.is_locked(cell):
            try:
                source_cell = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                source_cell = None  # nbgrader's own step says so
            if source_cell is not None and source_cell.locked and source_cell.cell_type == cell.cell_type:
                released = copy.deepcopy(cell)
                released.source = source_cell.source
                ClearHiddenTests(parent=self)._remove_hidden_test_region(released)
                if utils.compute_checksum(cell) == utils.compute_checksum(released):
                    cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, cell_index)
