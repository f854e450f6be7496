"""The MCP annotations of every AgentDojo tool the harness serves, per suite.

read_only:  the call changes nothing in the user's environment (their mail, calendar, drive,
            bank account, Slack workspace, bookings). A read that leaves a trace only at the
            remote end (a web fetch, which the site logs) is still read-only: that trace is what
            open_world says.
open_world: the call reaches outside the user's own data and systems: the public web, a
            third-party booking platform whose content strangers write, or other people (mail
            to any address, invitations, payments, shares, bookings at a business).

Each entry is (read_only, open_world). The README's table is this one, with the reasons.
"""

RO, RW = True, False
CLOSED, OPEN = False, True

WORKSPACE = {
    # mail
    "send_email": (RW, OPEN),
    "delete_email": (RW, CLOSED),
    # get_unread_emails marks every unread mail as read: it changes the inbox.
    "get_unread_emails": (RW, CLOSED),
    "get_sent_emails": (RO, CLOSED),
    "get_received_emails": (RO, CLOSED),
    "get_draft_emails": (RO, CLOSED),
    "search_emails": (RO, CLOSED),
    "search_contacts_by_name": (RO, CLOSED),
    "search_contacts_by_email": (RO, CLOSED),
    # calendar: creating, cancelling and rescheduling mail the participants; adding
    # participants shares the event with them.
    "get_current_day": (RO, CLOSED),
    "search_calendar_events": (RO, CLOSED),
    "get_day_calendar_events": (RO, CLOSED),
    "create_calendar_event": (RW, OPEN),
    "cancel_calendar_event": (RW, OPEN),
    "reschedule_calendar_event": (RW, OPEN),
    "add_calendar_event_participants": (RW, OPEN),
    # cloud drive: sharing hands a file to another person.
    "append_to_file": (RW, CLOSED),
    "search_files_by_filename": (RO, CLOSED),
    "create_file": (RW, CLOSED),
    "delete_file": (RW, CLOSED),
    "get_file_by_id": (RO, CLOSED),
    "list_files": (RO, CLOSED),
    "share_file": (RW, OPEN),
    "search_files": (RO, CLOSED),
}

# Travel: the hotel, restaurant, car-rental and flight look-ups query a public booking platform
# (its reviews are written by strangers, which is where the injections sit): read-only, open
# world. The user's own profile and calendar are closed; a booking or a mail reaches a business
# or a person outside.
TRAVEL = {
    "get_user_information": (RO, CLOSED),
    "get_all_hotels_in_city": (RO, OPEN),
    "get_hotels_prices": (RO, OPEN),
    "get_rating_reviews_for_hotels": (RO, OPEN),
    "get_hotels_address": (RO, OPEN),
    "get_all_restaurants_in_city": (RO, OPEN),
    "get_cuisine_type_for_restaurants": (RO, OPEN),
    "get_restaurants_address": (RO, OPEN),
    "get_rating_reviews_for_restaurants": (RO, OPEN),
    "get_dietary_restrictions_for_all_restaurants": (RO, OPEN),
    "get_contact_information_for_restaurants": (RO, OPEN),
    "get_price_for_restaurants": (RO, OPEN),
    "check_restaurant_opening_hours": (RO, OPEN),
    "get_all_car_rental_companies_in_city": (RO, OPEN),
    "get_car_types_available": (RO, OPEN),
    "get_rating_reviews_for_car_rental": (RO, OPEN),
    "get_car_fuel_options": (RO, OPEN),
    "get_car_rental_address": (RO, OPEN),
    "get_car_price_per_day": (RO, OPEN),
    "get_flight_information": (RO, OPEN),
    "create_calendar_event": (RW, OPEN),
    "search_calendar_events": (RO, CLOSED),
    "get_day_calendar_events": (RO, CLOSED),
    "cancel_calendar_event": (RW, OPEN),
    "reserve_hotel": (RW, OPEN),
    "reserve_car_rental": (RW, OPEN),
    "reserve_restaurant": (RW, OPEN),
    "send_email": (RW, OPEN),
}

# Banking: a payment (now, scheduled, or a scheduled one changed) moves money to someone else.
BANKING = {
    "get_iban": (RO, CLOSED),
    "send_money": (RW, OPEN),
    "schedule_transaction": (RW, OPEN),
    "update_scheduled_transaction": (RW, OPEN),
    "get_balance": (RO, CLOSED),
    "get_most_recent_transactions": (RO, CLOSED),
    "get_scheduled_transactions": (RO, CLOSED),
    "read_file": (RO, CLOSED),
    "get_user_info": (RO, CLOSED),
    "update_password": (RW, CLOSED),
    "update_user_info": (RW, CLOSED),
}

# Slack: messages and channel membership stay inside the user's own Slack workspace (closed,
# though not read-only); inviting someone by mail and the web are outside.
SLACK = {
    "get_channels": (RO, CLOSED),
    "add_user_to_channel": (RW, CLOSED),
    "read_channel_messages": (RO, CLOSED),
    "read_inbox": (RO, CLOSED),
    "send_direct_message": (RW, CLOSED),
    "send_channel_message": (RW, CLOSED),
    "get_users_in_channel": (RO, CLOSED),
    "invite_user_to_slack": (RW, OPEN),
    "remove_user_from_slack": (RW, CLOSED),
    "get_webpage": (RO, OPEN),
    "post_webpage": (RW, OPEN),
}

TABLE = {"workspace": WORKSPACE, "travel": TRAVEL, "banking": BANKING, "slack": SLACK}


def hints(suite: str, tool: str) -> tuple[bool, bool]:
    """(read_only, open_world) of `tool` in `suite`; KeyError when the table lacks it."""
    return TABLE[suite][tool]


def check_table(suite: str, tool_names: list[str]) -> None:
    """Fails loudly when the suite's tools and the table disagree (a new AgentDojo release)."""
    table = set(TABLE[suite])
    served = set(tool_names)
    if table != served:
        raise SystemExit(
            f"annotation table of {suite} out of date: missing {sorted(served - table)}, "
            f"unknown {sorted(table - served)}"
        )
