from grasp_agent.db.memory import plan_memory

GIB = 1024**3


def test_this_machine_size_gets_a_fifth_heap_and_a_sixth_page_cache() -> None:
    plan = plan_memory(24 * GIB)
    assert plan.heap == "4864m"  # 20% of 24576 MiB = 4915, down to a 256 MiB step
    assert plan.pagecache == "3584m"  # 15% = 3686, down to a 256 MiB step


def test_small_machines_get_the_floors() -> None:
    assert plan_memory(2 * GIB) == plan_memory(1 * GIB)
    assert plan_memory(2 * GIB).heap == "1024m"
    assert plan_memory(2 * GIB).pagecache == "512m"


def test_big_machines_are_capped() -> None:
    plan = plan_memory(512 * GIB)
    assert (plan.heap, plan.pagecache) == ("8192m", "8192m")


def test_explicit_sizes_win() -> None:
    plan = plan_memory(24 * GIB, heap="2g", pagecache="1g")
    assert (plan.heap, plan.pagecache) == ("2g", "1g")
